#!/usr/bin/env bash
# Install what running needs (if not yet) and open JupyterLab on the quickstart notebook.
# Extra arguments go to `jupyter lab` (e.g. --no-browser --port 8899).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh --run
extra=()
if [ "$(id -u)" = "0" ]; then
  extra+=(--allow-root)  # Jupyter refuses to run as root without it (containers, CI machines)
fi
echo "jupyter-agent: starting JupyterLab on notebooks/quickstart.ipynb (Ctrl+C stops it)…"
# the start URL (printed below and opened in the browser) is the quickstart notebook itself
exec .venv/bin/jupyter lab --ServerApp.root_dir=notebooks --LabApp.default_url=/lab/tree/quickstart.ipynb \
  "${extra[@]}" "$@"
