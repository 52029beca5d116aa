#!/usr/bin/env bash
# Install jupyter-agent and everything its tests need into ./.venv (idempotent).
# System packages (Chromium for the browser tests) are installed with apt when missing
# and we are root; set JUPYTER_AGENT_SKIP_APT=1 to skip that step.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ "${JUPYTER_AGENT_SKIP_APT:-0}" != "1" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (apt) for the browser tests…"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: chromium is not installed; browser tests will be skipped" >&2
  fi
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.jupyter-agent-installed
# the side panel is rebuilt (npm, from the registry) when its sources change
want=$(cat pyproject.toml labextension/package.json labextension/src/* labextension/style/* \
  labextension/widget/* jupyter_agent/ui/static/*.css | sha1sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  rm -rf jupyter_agent/labextension jupyter_agent/ui/static/widget.js
  # pip's notes about local index folders are noise here; real errors still show
  .venv/bin/python -m pip install -q --upgrade pip 2> >(grep -v "is ignored: it is neither" >&2)
  .venv/bin/python -m pip install -q -e ".[test,dev]" 2> >(grep -v "is ignored: it is neither" >&2)
  echo "$want" > "$stamp"
fi
