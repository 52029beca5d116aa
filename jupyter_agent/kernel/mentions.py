"""``@var``, ``@cell:N`` / ``@cell:ID`` and ``@file:path`` in a prompt become context blocks.

The prompt text is kept as typed; what each mention refers to is appended, so the model
sees both the question and the data without a tool call. Unknown mentions are left
alone with a note rather than failing the prompt. Files are read by bytes and redacted
like the ``read`` tool's output; variable summaries and cells are redacted when the
prompt is recorded (``agent.recorder``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from jupyter_agent.core.agents import SUBTASK_AGENTS
from jupyter_agent.core.fence import fence
from jupyter_agent.core.redaction import redact
from jupyter_agent.tools.notebook import format_cell
from jupyter_agent.tools.variables import short_repr, summarize_variable

MAX_FILE_CHARS = 20_000


class Mention(BaseModel):
    text: str
    """As written, e.g. ``@cell:3``."""
    kind: Literal["var", "cell", "file"]
    value: str
    """The variable name, cell number/id, or path (quotes removed)."""
    start: int
    """Offset of the ``@`` in the prompt."""


# Not after a word character, ``.``, ``/`` or ``:`` so emails and URLs (a@b.com,
# https://x.org/@user) are not mentions.
_MENTION = re.compile(
    r"(?<![\w.@/:+-])@(?:"
    r"cell:(?P<cell>[\w-]+)"
    r"|file:(?:\"(?P<fq>[^\"]+)\"|'(?P<sq>[^']+)'|(?P<file>\S+))"
    r"|(?P<var>[A-Za-z_][A-Za-z0-9_]*)"
    r")"
)
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_SUBTASK = re.compile(r"^\s*@(?P<agent>[A-Za-z_]\w*)\b")
_TRAILING = ".,;:)]}!?\"'"


def subtask_prefix(prompt: str) -> str | None:
    """``@explore find X`` → ``explore``: the prompt runs as a subtask of that agent."""
    match = _SUBTASK.match(prompt)
    if match and match.group("agent") in SUBTASK_AGENTS:
        return match.group("agent")
    return None


def parse_mentions(prompt: str) -> list[Mention]:
    """``@df``, ``@cell:3`` / ``@cell:<id>``, ``@file:path`` outside code spans.

    Emails, URLs, decorators in backticks and a leading ``@explore``/``@general`` (a
    subtask prefix) are not mentions.
    """
    masked = _CODE.sub(lambda m: " " * len(m.group(0)), prompt)
    prefix = _SUBTASK.match(prompt) if subtask_prefix(prompt) else None
    found: list[Mention] = []
    for match in _MENTION.finditer(masked):
        if prefix is not None and match.start() == prefix.start("agent") - 1:
            continue
        text = prompt[match.start() : match.end()]
        if match.group("cell"):
            found.append(Mention(text=text, kind="cell", value=match.group("cell"), start=match.start()))
        elif match.group("var"):
            found.append(Mention(text=text, kind="var", value=match.group("var"), start=match.start()))
        else:
            quoted = match.group("fq") or match.group("sq")
            value = quoted or match.group("file").rstrip(_TRAILING)
            if not quoted:
                text = f"@file:{value}"
            if value:
                found.append(Mention(text=text, kind="file", value=value, start=match.start()))
    return found


def typed_inputs(shell: Any) -> list[str]:
    """Cell sources as the user typed them (``In`` holds IPython's transformed source:
    ``%load_ext x`` becomes ``get_ipython().run_line_magic(...)``)."""
    history = getattr(shell, "history_manager", None)
    raw = getattr(history, "input_hist_raw", None)
    if isinstance(raw, list) and raw:
        return [str(s) for s in raw]
    return [str(s) for s in shell.user_ns.get("In") or []]


def _cell_by_count(shell: Any, count: int) -> str | None:
    inputs = typed_inputs(shell)
    if not 0 < count < len(inputs):
        return None
    out = shell.user_ns.get("Out", {}).get(count)
    text = f"In [{count}]:\n{inputs[count]}"
    if out is not None:
        text += f"\nOut [{count}]:\n{short_repr(out, 4000)}"
    return text


def _cell_by_id(path: Path | None, cell_id: str) -> str | None:
    if path is None or not path.exists():
        return None
    # nbformat (and its JSON Schema) loads only when a cell is mentioned by id
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.get("id") == cell_id:
            return format_cell(index, cell)
    return None


def _resolve(kind: str, value: str, agent: Any) -> str | None:
    shell = agent.shell
    if kind == "var":
        if value not in shell.user_ns:
            return None

        return summarize_variable(value, shell.user_ns[value])
    if kind == "cell":
        if value.isdigit():
            return _cell_by_count(shell, int(value))
        return _cell_by_id(agent.notebook_path(), value)
    if kind == "file":
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = agent.runtime.working_dir / path
        if not path.is_file():  # a FIFO or a device is "not found", never opened
            return None
        return _file_text(path)
    return None


def _file_text(path: Path) -> str:
    """The file's start, read by bytes (a 2 GB log costs ``MAX_FILE_CHARS``), redacted like
    the ``read`` tool's output."""
    with path.open("rb") as fh:
        raw = fh.read(MAX_FILE_CHARS * 4 + 1)
        size = max(path.stat().st_size, len(raw))
    text = raw.decode("utf-8", errors="replace")
    if len(text) > MAX_FILE_CHARS or size > len(raw):
        text = text[:MAX_FILE_CHARS] + f"\n… (the file has {size} bytes; use read for the rest)"
    return redact(text)


def expand_mentions(prompt: str, agent: Any) -> str:
    """The prompt plus one ``<mention_xxxxxxxx>`` block per mention (see ``core.fence``)."""
    blocks: list[str] = []
    for mention in parse_mentions(prompt):
        body = _resolve(mention.kind, mention.value, agent)
        # file text, cells and variables are untrusted: their tag cannot be closed from inside
        blocks.append(fence("mention", "(not found)" if body is None else body, ref=mention.text))
    if not blocks:
        return prompt
    return prompt + "\n\n" + "\n".join(blocks)
