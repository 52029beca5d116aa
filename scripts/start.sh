#!/usr/bin/env bash
# Install (if needed) and open JupyterLab on the quickstart notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
exec .venv/bin/jupyter lab notebooks/quickstart.ipynb "$@"
