"""What one inline completion carries, fitted into ``completion.max_context_tokens``.

The text nearest the cursor matters most, so the budget is spent in that order: the cell
before the cursor (its end), the cell after it (its start), the live names the cell uses,
then the cells above, nearest first. Sizes are estimated (characters / 4): a completion is
asked for on every pause in typing, and counting tokens exactly would cost more than the
estimate's error. Every piece is redacted like anything else that leaves the kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jupyter_agent.core.chat import ChatMessage, ChatSystem, ChatUser
from jupyter_agent.core.redaction import redact, secret_values

CHARS_PER_TOKEN = 4
CURSOR = "<CURSOR>"
PREFIX_SHARE = 0.45
SUFFIX_SHARE = 0.15
NAMES_SHARE = 0.25
"""Most of the budget each part may take before the next part is served (the cells above
get the rest, and whatever an earlier part left unused)."""


@dataclass(frozen=True)
class InlineContext:
    prefix: str
    """The cell before the cursor (its end, when the cell is longer than its share)."""
    suffix: str
    names: tuple[str, ...] = ()
    """One line per live name, most relevant first."""
    cells_above: tuple[str, ...] = ()
    """The sources of the cells above that fit, in notebook order (nearest last)."""

    def chars(self) -> int:
        return len(self.prefix) + len(self.suffix) + sum(len(t) + 1 for t in (*self.names, *self.cells_above))


def fit(
    prefix: str,
    suffix: str,
    names: Sequence[str],
    cells_above: Sequence[str],
    budget_tokens: int,
) -> InlineContext:
    """The parts that fit in ``budget_tokens``. Secrets are redacted before the final cut,
    so a cut cannot leave half a key that no longer matches."""
    secrets = secret_values()
    budget = budget_tokens * CHARS_PER_TOKEN
    # redacted in a window twice the share: a huge cell is not scanned whole per keystroke
    head_room, tail_room = int(budget * PREFIX_SHARE), int(budget * SUFFIX_SHARE)
    head = _tail(redact(prefix[-2 * head_room :], secrets), head_room)
    tail = redact(suffix[: 2 * tail_room], secrets)[:tail_room]
    left = budget - len(head) - len(tail)
    unused = int(budget * (PREFIX_SHARE + SUFFIX_SHARE)) - len(head) - len(tail)
    names_room = int(budget * NAMES_SHARE) + max(0, unused)
    kept_names: list[str] = []
    for line in names:
        line = redact(line, secrets)
        if len(line) + 1 > min(left, names_room):
            continue  # a shorter line further down may still fit
        kept_names.append(line)
        left -= len(line) + 1
        names_room -= len(line) + 1
    kept_cells: list[str] = []
    for source in reversed(cells_above):
        text = redact(source.strip("\n"), secrets)
        if not text.strip():
            continue
        if len(text) + 2 > left:
            break  # nearer cells first: an older one would skip what connects them
        kept_cells.append(text)
        left -= len(text) + 2
    return InlineContext(head, tail, tuple(kept_names), tuple(reversed(kept_cells)))


def _tail(text: str, limit: int) -> str:
    """The last ``limit`` characters, cut at a line start when one is near."""
    if len(text) <= limit:
        return text
    cut = text[len(text) - limit :]
    newline = cut.find("\n")
    return cut[newline + 1 :] if 0 <= newline < limit // 4 else cut


def chat_messages(ctx: InlineContext, instructions: str) -> list[ChatMessage]:
    """The chat shape: the instructions (``prompts/complete.txt``), then the names, the
    cells above and the cell with ``<CURSOR>``."""
    parts = []
    if ctx.names:
        parts.append("Live variables in the kernel:\n" + "\n".join(ctx.names))
    if ctx.cells_above:
        parts.append("Cells above:\n" + "\n\n".join(f"```python\n{c}\n```" for c in ctx.cells_above))
    parts.append(f"Current cell:\n```python\n{ctx.prefix}{CURSOR}{ctx.suffix}\n```")
    return [
        ChatSystem(role="system", content=instructions),
        ChatUser(role="user", content="\n\n".join(parts)),
    ]


def fim_prompt(ctx: InlineContext) -> str:
    """The fill-in-the-middle prompt: the names as comments and the cells above as the code
    that ran before, then the cell up to the cursor (the suffix goes separately)."""
    head = ""
    if ctx.names:
        head += "# Live variables in the kernel:\n" + "".join(f"# {line}\n" for line in ctx.names) + "\n"
    if ctx.cells_above:
        head += "\n\n".join(ctx.cells_above) + "\n\n"
    return head + ctx.prefix


class Suggestion:
    """What a chat model's continuation becomes before it is shown: an opening Markdown
    fence, the current line said again and a trailing ``<CURSOR>`` or closing fence are
    taken out, and trailing blank space waits for more text (a suggestion never ends in an
    empty line). Fed piece by piece as it streams; ``flush`` at the end."""

    def __init__(self, prefix: str) -> None:
        self.echo = prefix.rsplit("\n", 1)[-1].lstrip()
        self.state = "start"
        self.held = ""
        self.ended = False

    def feed(self, text: str) -> str:
        if self.ended:
            return ""
        self.held += text
        if self.state == "start":
            if "```".startswith(self.held) or (self.held.startswith("```") and "\n" not in self.held):
                return ""  # maybe an opening fence: wait for its line
            if self.held.startswith("```"):
                self.held = self.held.split("\n", 1)[1]
            self.state = "echo"
        if self.state == "echo":
            if len(self.echo) > 1 and self.echo.startswith(self.held) and len(self.held) < len(self.echo):
                return ""  # maybe the current line said again
            if len(self.echo) > 1 and self.held.startswith(self.echo):
                self.held = self.held[len(self.echo) :]
            self.state = "body"
        return self._body()

    def _body(self) -> str:
        for marker in ("```", CURSOR):
            at = self.held.find(marker)
            if at >= 0:
                self.held, self.ended = self.held[:at], True
        keep = len(self.held.rstrip())
        for marker in () if self.ended else ("```", CURSOR):  # a marker's start waits for the rest
            for n in range(len(marker) - 1, 0, -1):
                if self.held[:keep].endswith(marker[:n]):
                    keep -= n
                    break
        out, self.held = self.held[:keep], self.held[keep:]
        return out

    def flush(self) -> str:
        """What is still held once the stream ended (trailing blank space is dropped)."""
        if self.state == "start" and self.held.startswith("```"):
            return ""
        rest, self.held = self.held.rstrip(), ""
        return rest
