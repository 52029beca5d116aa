#!/usr/bin/env bash
# Install what running needs (if not yet) and open JupyterLab on your copy of the quickstart
# notebook (notebooks/scratch/, ignored by git: running it never changes a tracked file).
# Extra arguments go to `jupyter lab` (e.g. --no-browser --port 8899).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh --run
extra=()
if [ "$(id -u)" = "0" ]; then
  extra+=(--allow-root)  # Jupyter refuses to run as root without it (containers, CI machines)
fi
copy=notebooks/scratch/quickstart.ipynb
if [ ! -e "$copy" ]; then
  mkdir -p notebooks/scratch
  cp notebooks/quickstart.ipynb "$copy"
  echo "jupyter-agent: copied the quickstart to $copy (yours to run and change)"
fi
echo "jupyter-agent: starting JupyterLab on $copy (Ctrl+C stops it)…"
echo "jupyter-agent: no model yet? the Agent panel (right sidebar) opens on its setup; or run .venv/bin/jupyter-agent setup"
# the start URL (printed below and opened in the browser) is the quickstart notebook itself
exec .venv/bin/jupyter lab --ServerApp.root_dir=notebooks --LabApp.default_url=/lab/tree/scratch/quickstart.ipynb \
  "${extra[@]}" "$@"
