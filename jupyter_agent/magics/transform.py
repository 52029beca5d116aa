"""Keep IPython's ``?`` help syntax away from prompts: ``%agent why did this fail?`` is a question.

IPython treats a line ending in ``?`` as "show help for this object", so without this the
prompt would never reach the agent. A cleanup transformer (it runs before the help one)
turns ``%agent …`` lines into explicit magic calls. ``%agent?`` and ``%compact??`` alone
are left to IPython: they show the magic's help (``magics/help.py``), never a prompt.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"^(\s*)%(agent|compact)\b(.*)$")


def protect_agent_lines(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        match = _LINE.match(line.rstrip("\n"))
        if match and not line.lstrip().startswith("%%") and match.group(3).strip() not in ("?", "??"):
            indent, name, rest = match.groups()
            newline = "\n" if line.endswith("\n") else ""
            out.append(f"{indent}get_ipython().run_line_magic({name!r}, {rest.strip()!r}){newline}")
        else:
            out.append(line)
    return out


def install(shell: object) -> None:
    transforms = getattr(shell, "input_transformers_cleanup", None)
    if transforms is not None and protect_agent_lines not in transforms:
        transforms.append(protect_agent_lines)
