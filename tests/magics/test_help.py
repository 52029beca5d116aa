"""Help where IPython users look: ``%agent?``, ``%%agent?``, ``%compact?`` show real docstrings,
and a bare ``?`` / ``??`` is never sent to a model (it was a paid call)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from kernel_harness import CellResult, Kernel

from jupyter_agent.core.agents import PROMPTABLE
from jupyter_agent.magics import help_text
from jupyter_agent.magics.magics import AgentMagics
from jupyter_agent.magics.parser import _FLAGS, _VALUED, SUBCOMMANDS
from jupyter_agent.magics.transform import protect_agent_lines


def test_the_help_lists_what_the_parser_accepts() -> None:
    assert help_text.AGENTS == PROMPTABLE
    flags = [flag.split()[0] for flag, _ in help_text.OPTIONS]
    assert sorted(flags) == sorted([*_FLAGS, *_VALUED])
    for doc in (help_text.AGENT_LINE, help_text.AGENT_CELL):
        assert all(flag in doc for flag in flags)
        assert "@var_name" in doc and "@file:path" in doc and "AgentRunError" in doc
    assert all(f"%agent {name}" in help_text.AGENT_LINE for name in SUBCOMMANDS)
    assert "%compact SESSION_ID" in help_text.COMPACT


def test_every_magic_has_its_docstring() -> None:
    assert AgentMagics.agent_line.__doc__ == help_text.AGENT_LINE
    assert AgentMagics.agent_cell.__doc__ == help_text.AGENT_CELL
    assert AgentMagics.compact.__doc__ == help_text.COMPACT


def test_a_question_mark_alone_is_left_to_ipython_help() -> None:
    for line in ("%agent?\n", "%agent??\n", "  %compact?\n", "%agent ?\n"):
        assert protect_agent_lines([line]) == [line]
    # a question is a prompt, as before
    assert protect_agent_lines(["%agent why?\n"]) == ["get_ipython().run_line_magic('agent', 'why?')\n"]


def _shown(result: CellResult) -> str:
    pages = [p.get("data", {}).get("text/plain", "") for p in result.payload if p.get("source") == "page"]
    return "".join(pages) + result.shown


@pytest.mark.kernel
def test_help_in_a_kernel_never_reaches_the_model(tmp_path: Path, scripted_server: Any) -> None:
    env = {
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
    }
    kernel = Kernel(tmp_path, env)
    try:
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        line_first = help_text.AGENT_LINE.splitlines()[0]
        cell_first = help_text.AGENT_CELL.splitlines()[0]
        compact_first = help_text.COMPACT.splitlines()[0]
        for code, expected in [
            ("%agent?", line_first),
            ("%agent??", "jupyter_agent/magics/magics.py"),  # IPython's ?? shows the source
            ("%%agent?", cell_first),
            ("%compact?", compact_first),
            ("%agent ?", line_first),
            ("%%agent\n?", cell_first),
            ("%compact ??", compact_first),
            # issue 40: these went to the model (a paid call), failed the cell, or named a session
            ("%agent help", line_first),
            ("%agent -h", line_first),
            ("%agent --help", line_first),
            ("%%agent --help\nplot the sales", cell_first),
            ("%compact --help", compact_first),
            ("%compact -h", compact_first),
        ]:
            result = kernel.execute(code)
            assert result.status == "ok", (code, result.error)
            assert expected in _shown(result), (code, _shown(result)[:300])
            assert "No session" not in result.stdout and "<no docstring>" not in _shown(result)
        assert scripted_server.requests == [] and scripted_server.completions == []
        assert not (tmp_path / ".jupyter-agent").exists()  # not even a session was made
    finally:
        kernel.shutdown()


def test_help_prose_wraps_with_the_notebook() -> None:
    """`%agent?` was hard-wrapped at 90 columns and re-wrapped mid-line in a narrower output:
    prose is one line per paragraph (the notebook wraps it), the Markdown display keeps the
    usage tables as code blocks."""
    for text in (help_text.AGENT_LINE, help_text.AGENT_CELL, help_text.COMPACT):
        prose = [p for p in text.split("\n\n") if p.strip() and not p.startswith(" ")]
        for paragraph in prose:
            lines = paragraph.splitlines()
            wrapped = [
                a for a, b in itertools.pairwise(lines) if not b.startswith(" ") and not a.endswith(":")
            ]
            assert not wrapped, paragraph[:200]
        shown = help_text.markdown(text)
        assert "```text\n  " in shown or text is help_text.COMPACT
    bundle = help_text.bundle(help_text.AGENT_LINE)
    assert bundle["text/plain"] == help_text.AGENT_LINE and "```text" in bundle["text/markdown"]
