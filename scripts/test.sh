#!/usr/bin/env bash
# Install (if needed) everything the tests need, then run the whole suite; skipped tests are
# listed with their reason. "No tests ran" is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh || exit 1
# two workers, each test file on one of them (its module fixtures: a Lab, a proxy, start once)
.venv/bin/python -m pytest -rs -n 2 --dist loadfile --durations=15 "$@"
code=$?
if [ "$code" = "5" ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$code"
