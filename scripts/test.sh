#!/usr/bin/env bash
# Install (if needed) everything the tests need, then run the whole suite; skipped tests are
# listed with their reason. "No tests ran" is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh || exit 1
.venv/bin/python -m pytest -rs "$@"
code=$?
if [ "$code" = "5" ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$code"
