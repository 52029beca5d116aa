"""Run by scripts/check-wheel.sh with the python of a fresh venv that holds only the wheel.

Starts a kernel from that venv, runs ``%load_ext jupyter_agent`` and a ``%%agent --wait``
cell against the scripted OpenAI-compatible server of the tests, and checks that no Jupyter
server or JupyterLab module is installed or imported. Exits non-zero with the reason.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

# the tests' scripted server is stdlib only; jupyter_client comes with ipykernel
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from jupyter_client.manager import KernelManager
from scripted_server import Reply, ScriptedServer

SERVER_SIDE = ("jupyterlab", "jupyter_server", "notebook", "jupyterlab_server")


def run(kc: object, code: str) -> str:
    """The cell's printed text; an error in it is a failure."""
    out: list[str] = []

    def collect(msg: dict) -> None:
        content = msg["content"]
        if msg["msg_type"] == "stream":
            out.append(content["text"])
        elif msg["msg_type"] in ("display_data", "execute_result"):
            out.append(content["data"].get("text/plain", ""))
        elif msg["msg_type"] == "error":
            out.append("\n".join(content["traceback"]))

    reply = kc.execute_interactive(code, output_hook=collect, timeout=180)  # type: ignore[attr-defined]
    text = "".join(out)
    if reply["content"]["status"] != "ok":
        sys.exit(f"cell failed: {code!r}\n{text}")
    return text


def main() -> None:
    installed = [m for m in SERVER_SIDE if importlib.util.find_spec(m) is not None]
    if installed:
        sys.exit(f"the kernel package pulled in server-side packages: {installed}")
    server = ScriptedServer().start()
    server.queue(Reply(text="The light kernel answers."))
    folder = Path(tempfile.mkdtemp(prefix="jupyter-agent-wheel-"))
    env = {
        **os.environ,
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "not-needed",
        "XDG_CONFIG_HOME": str(folder / "config"),
    }
    km = KernelManager(kernel_name="python3")
    km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    km.start_kernel(cwd=str(folder), env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        run(kc, "%load_ext jupyter_agent")
        answer = run(kc, "%%agent --wait\nSay something.")
        if "The light kernel answers." not in answer:
            sys.exit(f"%%agent --wait did not show the answer:\n{answer}")
        loaded = run(
            kc, f"import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in {SERVER_SIDE}))"
        )
        if loaded.strip() != "[]":
            sys.exit(f"the kernel imported server-side modules: {loaded}")
        if not (folder / ".jupyter-agent" / "sessions.db").is_file():
            sys.exit("the session was not stored next to the notebook")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        server.stop()
    print(f"ok: {sys.version.split()[0]}: %load_ext and %%agent --wait ran in a kernel without JupyterLab")


if __name__ == "__main__":
    main()
