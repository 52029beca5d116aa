#!/usr/bin/env bash
# Install (if needed) and run the whole test suite. "No tests ran" is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh || exit 1
.venv/bin/python -m pytest "$@"
code=$?
if [ "$code" = "5" ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$code"
