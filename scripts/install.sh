#!/usr/bin/env bash
# Install jupyter-agent into ./.venv (idempotent).
#   scripts/install.sh --run   what running needs: the package, JupyterLab (the `lab` extra)
#                              and the quickstart notebook's libraries (`examples`). Used by
#                              start.sh.
#   scripts/install.sh         everything the tests need as well (the `test`, `proxy`, `hub`
#                              and `dev` extras, JupyterHub's configurable-http-proxy and the
#                              reference MCP server from npm into .venv/node) and, when we are
#                              root, Chromium (browser tests)
#                              and bubblewrap (the bash sandbox) from apt; set
#                              JUPYTER_AGENT_SKIP_APT=1 to skip apt. Used by test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=test
if [ "${1:-}" = "--run" ]; then
  mode=run
fi
PY=${PYTHON:-python3}
say() { echo "jupyter-agent: $*"; }
fail() { echo "jupyter-agent: error: $*" >&2; exit 1; }
# Run a long step and say every 20 s (JUPYTER_AGENT_PROGRESS_S) that it still runs: pip -q
# and the npm build inside it print nothing for minutes. Its errors go to stderr as they
# come; its exit status is ours.
progress() {
  local what=$1 started=$SECONDS every=${JUPYTER_AGENT_PROGRESS_S:-20} pid waited
  shift
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    waited=0
    while [ "$waited" -lt "$every" ] && kill -0 "$pid" 2>/dev/null; do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then say "  … still $what ($((SECONDS - started)) s so far)"; fi
  done
  wait "$pid"
}

command -v "$PY" >/dev/null 2>&1 || fail "$PY not found; install Python 3.10 or newer (or set PYTHON=/path/to/python3)"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
  fail "$("$PY" --version 2>&1) is too old; jupyter-agent needs Python 3.10 or newer (set PYTHON=/path/to/python3)"

# chromium for the browser tests; bubblewrap (bwrap) for the bash sandbox and its tests
apt_wanted=""
command -v chromium >/dev/null 2>&1 || apt_wanted="$apt_wanted chromium"
command -v bwrap >/dev/null 2>&1 || apt_wanted="$apt_wanted bubblewrap"
if [ "$mode" = "test" ] && [ "${JUPYTER_AGENT_SKIP_APT:-0}" != "1" ] && [ -n "$apt_wanted" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    say "installing$apt_wanted (apt) for the browser and sandbox tests…"
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086  # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt_wanted >/dev/null
  else
    case "$apt_wanted" in *chromium*)
      echo "note: chromium is not installed; browser tests will be skipped (as root, this script installs it with apt)" >&2;;
    esac
    case "$apt_wanted" in *bubblewrap*)
      echo "note: bubblewrap is not installed; bash runs without its sandbox and the sandbox tests are skipped (apt install bubblewrap)" >&2;;
    esac
  fi
fi

if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $("$PY" --version 2>&1)…"
  "$PY" -m venv .venv
fi
stamp=.venv/.jupyter-agent-installed
# the side panel is rebuilt (npm, from the registry) when its sources change
want=$(cat pyproject.toml labextension/package.json labextension/src/*.ts labextension/style/* \
  labextension/src/widget/* labextension/schema/* jupyter_agent/ui/static/*.css | sha1sum | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
# a test install holds everything a run install does
if [ "$have" = "$want test" ] || { [ "$mode" = "run" ] && [ "$have" = "$want run" ]; }; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  fail "npm not found: installing from a clone builds the side panel with Node.js; install Node.js 18+ with npm (https://nodejs.org) and run this again"
fi
if [ "$mode" = "run" ]; then
  extras=lab,examples
  say "installing jupyter-agent, JupyterLab and the quickstart's libraries into .venv
  (this also builds the side panel with npm; a few minutes the first time)…"
else
  extras=lab,examples,test,proxy,hub,dev
  say "installing jupyter-agent with its test and dev tools into .venv
  (this also builds the side panel with npm; a few minutes the first time)…"
fi
rm -rf jupyter_agent/labextension jupyter_agent/ui/static/widget.js
# pip's notes about local index folders are noise here; real errors still show
say "1/3 updating pip…"
progress "updating pip" .venv/bin/python -m pip install -q --upgrade pip 2> >(grep -v "is ignored: it is neither" >&2)
# the distribution was called jupyter-agent before it became jupyter-agent-kernel: an old
# editable install would shadow the new one
if .venv/bin/python -m pip show -q jupyter-agent >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y jupyter-agent
fi
say "2/3 downloading and installing the Python packages (.[$extras]), then building the side panel with npm…"
progress "installing (pip, then the npm build of the side panel)" \
  .venv/bin/python -m pip install -q -e ".[$extras]" 2> >(grep -v "is ignored: it is neither" >&2)
if [ "$mode" = "test" ]; then
  say "3/3 installing JupyterHub's proxy and the reference MCP server (npm, into .venv/node) for the tests…"
  # JupyterHub's proxy for tests/test_jupyterhub.py and the reference MCP server (resources,
  # prompts) for tests/mcp/test_mcp_everything.py, inside .venv (nothing installed globally)
  progress "installing JupyterHub's proxy and the reference MCP server" \
    npm install --prefix .venv/node --no-audit --no-fund --loglevel=error \
    "configurable-http-proxy@^5" "@modelcontextprotocol/server-everything@2026.8.31" >/dev/null
else
  say "3/3 nothing more to install for running"
fi
echo "$want $mode" > "$stamp"
say "installed into .venv"
