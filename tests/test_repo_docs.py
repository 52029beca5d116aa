"""The documents a newcomer reads point only at files in the repository and carry no notes
about one particular machine; the README's screenshot is there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "AGENTS.md", *ROOT.glob("docs/*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")
# phrases of notes written for one machine, or of documents that live outside the repo
LOCAL = re.compile(r"this machine|registry here|/work/|\.\./shared|SPEC-context|DESIGN\.md", re.IGNORECASE)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_stay_inside_the_repository(doc: Path) -> None:
    for target in LINK.findall(doc.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # web links and anchors
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"{doc.name} links to {target}"


def test_no_notes_about_a_particular_machine() -> None:
    files = [*DOCS, ROOT / "labextension" / "package.json", ROOT / "pyproject.toml", *ROOT.glob("scripts/*")]
    found = [f"{f.relative_to(ROOT)}: {m.group(0)}" for f in files for m in LOCAL.finditer(f.read_text())]
    assert found == []


def test_the_readme_shows_a_saved_notebook() -> None:
    assert "](docs/saved-notebook.png)" in (ROOT / "README.md").read_text()
    assert (ROOT / "docs" / "saved-notebook.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_readme_shows_the_panel_narrow_and_wide_light_and_dark() -> None:
    """Screenshots of the panel at 250 and 400 px, light and dark (test_panel_ux.py takes them),
    and the README says how to fix a cell with the agent and what the shortcut is."""
    readme = (ROOT / "README.md").read_text()
    for width in (250, 400):
        for theme in ("light", "dark"):
            name = f"docs/panel-{width}-{theme}.png"
            assert f"]({name})" in readme, name
            assert (ROOT / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert "### Fix with agent" in readme and "%agent fix [CELL]" in readme and "/fix" in readme
    assert "**Alt+I**" in readme and "jupyter-agent:focus-prompt" in readme
