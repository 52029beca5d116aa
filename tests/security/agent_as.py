"""The agent's ``bash`` tool in a process of its own, for the tests that need one: run as an
unprivileged user (``setpriv``) while the suite runs as root, or killed with ``kill -9``.

``python agent_as.py PROJECT COMMAND…`` runs each command as one prompt of a headless run in
PROJECT (the in-process scripted model, rules that allow everything, the real sandbox) and prints one
JSON line per command (its status and output), then one for the configuration a next
session there would read (the files left out as untrusted, whether the sandbox is on).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

NOBODY = ("--reuid=65534", "--regid=65534", "--clear-groups")
OPEN = {"bash": "allow", "external_directory": "allow"}
"""The rules let everything through: what holds is the sandbox and what the agent reads later."""


def unprivileged_python() -> list[str] | None:
    """How to start this file as the unprivileged user (an interpreter it may run that loads
    this checkout), or None when there is no way here."""
    if os.getuid() != 0 or shutil.which("setpriv") is None:
        return None
    site = next(p for p in sys.path if p.endswith("site-packages"))
    boot = (
        f"import runpy, site, sys; site.addsitedir({site!r}); sys.argv = sys.argv[1:]; "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    for python in (sys.executable, f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"):
        argv = ["setpriv", *NOBODY, python, "-c", boot]
        done = subprocess.run([*argv, __file__, "--check"], capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip() == "ok":
            return argv
    return None


async def _main(project: Path, commands: list[str]) -> None:
    here = Path(__file__).resolve().parent
    sys.path[:0] = [str(here), str(here.parent)]  # the hostile model's moves, the scripted model
    from hostile import run_bash
    from scripted_model import ScriptedModel

    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.storage.sqlite_store import SqliteStore

    model = ScriptedModel()

    def runtime() -> object:
        settings = {"model": model.model, "api_base": model.base_url, "permission": OPEN}
        config = load_config(project, settings)
        built = build_runtime(
            config=config,
            store=SqliteStore.for_directory(project),
            project_root=project,
            working_dir=project,
            client=model,
        )
        built.generate_titles = False
        return built

    for command in commands:
        part = await run_bash(runtime(), model, command)
        print(
            json.dumps({"status": part.state.status, "output": getattr(part.state, "output", "")}), flush=True
        )
    config = load_config(project)
    print(
        json.dumps({"untrusted": [str(p.path) for p in config.untrusted], "sandbox": config.sandbox.enabled})
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        import jupyter_agent.tools.sandbox  # noqa: F401  (the package and its dependencies load)

        print("ok")
    else:
        os.environ.setdefault("JUPYTER_AGENT_API_KEY", "sk-test")
        asyncio.run(_main(Path(sys.argv[1]), sys.argv[2:]))
