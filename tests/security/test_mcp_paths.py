"""Issue 26.2: the paths an MCP tool is given are found wherever its arguments hold them
(``guard_paths`` checks them against protected and hidden paths; the end-to-end case is
``test_mcp_annotations.py::test_mcp_paths_meet_protected_and_hidden_paths``)."""

from __future__ import annotations

from jupyter_agent.mcp.tools import _paths


def test_nested_and_listed_paths_are_found() -> None:
    arguments = {
        "edits": [{"filePath": "jupyter-agent.json", "text": "x"}],
        "options": {"target": {"destination": "file://.git/config"}},
        "paths": ["a.txt", 3],
        "content": "not/a/path/key",
    }
    assert sorted(_paths(arguments)) == [".git/config", "a.txt", "jupyter-agent.json"]


def test_deep_nesting_is_bounded() -> None:
    deep: dict = {"path": "deep.txt"}
    for _ in range(50):
        deep = {"x": deep}
    assert _paths(deep) == []
