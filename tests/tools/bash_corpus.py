"""The command corpus (``tests/data/commands``) and how the rules decide each line.

``decide`` is the whole bash permission path (``permit_command``) with the real rule engine
(``PermissionManager.decide``), answering nothing: the strictest action any of its questions
got. The project root is a fixed path that does not exist and ``HOME`` is fixed by the caller,
so the decisions are the same on every machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jupyter_agent.agent.permissions import PermissionManager
from jupyter_agent.config import load_config
from jupyter_agent.core.bus import Bus
from jupyter_agent.tools.base import PermissionQuestion, ToolContext
from jupyter_agent.tools.bash import permit_command
from jupyter_agent.tools.services import Services

DATA = Path(__file__).parent.parent / "data" / "commands"
REPO = Path(__file__).parent.parent.parent
PROJECT = Path("/srv/jupyter-agent-corpus/project")
"""Never created: paths inside it are the project's, paths elsewhere leave it."""
HOME = "/srv/jupyter-agent-corpus/home"
POLICIES: dict[str, dict[str, Any]] = {"default": {}, "rm-deny": {"bash": {"rm *": "deny"}}}
"""The rules each line is decided under (merged over the built-in defaults)."""
ORDER = {"allow": 0, "ask": 1, "deny": 2}


def snapshot_lines() -> list[str]:
    """The lines whose decisions are kept in ``decisions.tsv`` (one command per line)."""
    lines: list[str] = []
    for name in ("everyday.txt", "tldr.txt"):
        lines += [line for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    return list(dict.fromkeys(lines))


def multiline() -> list[str]:
    return [c.strip("\n") for c in (DATA / "multiline.txt").read_text(encoding="utf-8").split("----\n")]


def documented() -> list[str]:
    """Shell lines from the project's own README, docs and notebooks (``!`` and ``%%bash``)."""
    found: list[str] = []
    for doc in [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]:
        for block in re.findall(
            r"```(?:bash|sh|shell|console)\n(.*?)```", doc.read_text(encoding="utf-8"), re.S
        ):
            found += [line.removeprefix("$ ") for line in block.splitlines() if line.strip()]
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if source.startswith("%%bash"):
                found.append(source.split("\n", 1)[-1])
            found += [line.strip()[1:] for line in source.splitlines() if line.strip().startswith("!")]
    return list(dict.fromkeys(found))


SHAPES: list[tuple[str, str | None, tuple[str, str] | None]] = [
    # (command, text its output holds, (file, text the file holds afterwards))
    ("sed -i s/alpha/OMEGA/ data.txt", None, ("data.txt", "OMEGA start\n")),
    ("sed 's/x/y/' a | sort", "yyz", None),
    ("sed -i.bak -e 's/a/b/' -e 's/c/d/' g", None, ("g.bak", "start\n")),
    ("sed 'y/abc/xyz/' f", "stxrt", None),
    ("sed $'s/a/b/' f", "stbrt", None),
    ("awk '/start/,/end/' f", "start", None),
    ("perl -ne 'print if /a\\/$/' slashes", "a/", None),
    ("node -e \"console.log('a/b/')\"", "a/b/", None),
    ("python3 -m pytest -q tests/", "1 passed", None),
]


def project(root: Path) -> None:
    """The files ``SHAPES`` work on, and a test folder for pytest."""
    (root / "data.txt").write_text("alpha start\n")
    (root / "a").write_text("xyz\n")
    (root / "f").write_text("start\n")
    (root / "g").write_text("start\n")
    (root / "slashes").write_text("a/\nb\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")


class Decider:
    """Decides lines under one policy; one manager and context for all of them."""

    def __init__(self, rules: dict[str, Any], root: Path) -> None:
        config = load_config(root, {"permission": rules}, global_dir=root / "no-global")
        self.manager = PermissionManager(Bus(), config)
        self.asked: list[str] = []

        async def ask(question: PermissionQuestion) -> None:
            self.asked.append(self.manager.decide("build", question))

        def rule(agent: str, permission: str, value: str, session: str | None, specific: bool = False) -> str:
            return self.manager.action(agent, permission, value, session, specific=specific)

        self.ctx = ToolContext(
            session_id="ses_corpus",
            message_id="msg_corpus",
            call_id="call_corpus",
            agent="build",
            project_root=PROJECT,
            working_dir=PROJECT,
            ask=ask,
            services=Services(permission_rule=rule),
        )

    async def decide(self, command: str) -> str:
        self.asked = []
        await permit_command(self.ctx, command, command[:80])
        return max(self.asked, key=ORDER.__getitem__, default="allow")


def format_row(decisions: list[str], command: str) -> str:
    return "\t".join([*decisions, json.dumps(command, ensure_ascii=False)])
