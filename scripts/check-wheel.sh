#!/usr/bin/env bash
# Before a release: build the wheel and check both install shapes in fresh venvs, installed
# from the package index as a user would (this downloads about 200 MB per venv):
#   - `pip install jupyter-agent-kernel` with each PYTHON: no JupyterLab or Jupyter server is
#     installed, and `%load_ext jupyter_agent` + `%%agent --wait` answer in a kernel started
#     from that venv (scripts/wheel_kernel_check.py, against the tests' scripted server);
#   - `pip install "jupyter-agent-kernel[lab]"` with the first PYTHON, as a server environment:
#     `jupyter labextension list` shows the panel, and the light venv's kernel is offered.
# Prints each venv's size. Usage: scripts/check-wheel.sh [PYTHON ...]  (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "check-wheel: $*"; }
[ -x .venv/bin/python ] || { echo "check-wheel: run ./scripts/install.sh first" >&2; exit 1; }
pythons=("$@")
[ ${#pythons[@]} -gt 0 ] || pythons=(python3)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the panel is built already (install.sh): the build hook skips npm
.venv/bin/python -m pip wheel --no-deps --no-build-isolation -q -w "$work/dist" . 2> >(grep -v "is ignored" >&2)
wheel=$(ls "$work"/dist/jupyter_agent_kernel-*.whl)
say "built $(basename "$wheel")"
size() { du -sm "$1" | cut -f1; }
count() { "$1/bin/python" -m pip list 2>/dev/null | tail -n +3 | wc -l; }
for py in "${pythons[@]}"; do
  venv="$work/light-$(basename "$py")"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q "$wheel" 2> >(grep -v "is ignored" >&2)
  "$venv/bin/python" scripts/wheel_kernel_check.py 2>/dev/null
  say "$("$venv/bin/python" --version): pip install jupyter-agent-kernel = $(size "$venv") MB, $(count "$venv") distributions"
done
light="$work/light-$(basename "${pythons[0]}")"
lab="$work/lab"
"${pythons[0]}" -m venv "$lab"
"$lab/bin/python" -m pip install -q "$wheel[lab]" 2> >(grep -v "is ignored" >&2)
say "$("$lab/bin/python" --version): pip install \"jupyter-agent-kernel[lab]\" = $(size "$lab") MB, $(count "$lab") distributions"
"$lab/bin/jupyter" labextension list 2>&1 | grep -E "jupyter-agent .*enabled.*OK" ||
  { echo "check-wheel: the [lab] environment does not list the panel" >&2; exit 1; }
# the two-environment shape: the server's Lab starts kernels from the light venv
"$light/bin/python" -m ipykernel install --prefix "$lab" --name agent-light --display-name "agent (light venv)" >/dev/null 2>&1
"$lab/bin/jupyter" kernelspec list | grep -q agent-light ||
  { echo "check-wheel: the server environment does not offer the light venv's kernel" >&2; exit 1; }
say "ok"
