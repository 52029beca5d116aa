#!/usr/bin/env bash
# Install (if needed) and open JupyterLab on the quickstart notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
extra=()
if [ "$(id -u)" = "0" ]; then
  extra+=(--allow-root)  # Jupyter refuses to run as root without it (containers, CI machines)
fi
exec .venv/bin/jupyter lab notebooks/quickstart.ipynb "${extra[@]}" "$@"
