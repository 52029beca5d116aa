"""The renderer shared by the cell widget and the side panel is TypeScript on the generated
protocol: nothing opts out of the type checker, and ``tsc`` checks the widget with the panel."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
SRC = LABEXTENSION / "src"
TSC = LABEXTENSION / "node_modules" / "typescript" / "bin" / "tsc"
NODE = shutil.which("node")
needs_tsc = pytest.mark.skipif(
    NODE is None or not TSC.exists(), reason="node or labextension/node_modules is missing (npm install)"
)
WIDGET = ("widget.ts", "model.ts", "view.ts", "header.ts", "messages.ts", "parts.ts", "permission.ts")
WIDGET += ("fenced.ts", "markdown.ts", "dom.ts")


def test_no_source_opts_out_of_the_type_checker() -> None:
    sources = sorted(SRC.rglob("*.ts"))
    assert {p.name for p in (SRC / "widget").iterdir()} >= set(WIDGET)
    opt_outs = [
        f"{p.relative_to(LABEXTENSION)}:{n}"
        for p in sources
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"@ts-(expect-error|ignore|nocheck)", line)
    ]
    assert opt_outs == []
    assert not list(SRC.rglob("*.js")) and not (LABEXTENSION / "widget").exists()  # no untyped renderer left


@needs_tsc
def test_tsc_checks_the_panel_and_the_widget_strictly() -> None:
    # the build's own incremental state (tsconfig.tsbuildinfo) is left alone
    once = ["--noEmit", "--composite", "false", "--incremental", "false"]
    result = subprocess.run(
        [NODE or "node", str(TSC), *once, "--listFiles", "-p", str(LABEXTENSION)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]
    checked = {Path(line).resolve() for line in result.stdout.splitlines()}
    for name in WIDGET:
        assert (SRC / "widget" / name).resolve() in checked, name
    assert (SRC / "panel.ts").resolve() in checked and (SRC / "protocol.ts").resolve() in checked


NARROWS = """
import type { PartView, UIMessage } from "%(protocol)s";
export function show(m: UIMessage): string {
  if (m.kind !== "part") return m.kind;
  const p: PartView = m.part;
  switch (p.type) {
    case "retry": return `${p.attempt} ${p.error} ${p.next}`;
    case "tool": return p.status === "error" ? p.error ?? "" : p.input;
    default: return p.type;
  }
}
"""


@needs_tsc
def test_the_generated_part_views_narrow_on_type(tmp_path: Path) -> None:
    """TypeScript knows a retry's fields only once ``type`` says it is one (a discriminated
    union, not one view with every field optional)."""
    good, bad = tmp_path / "good.ts", tmp_path / "bad.ts"
    good.write_text(NARROWS % {"protocol": SRC / "protocol"}, encoding="utf-8")
    misuse = "const p: PartView = m.part; p.attempt;"
    bad.write_text(good.read_text().replace("const p: PartView = m.part;", misuse), encoding="utf-8")
    args = ["--noEmit", "--strict", "--target", "es2020", "--lib", "es2020", str(good), str(bad)]
    result = subprocess.run([NODE or "node", str(TSC), *args], capture_output=True, text=True, timeout=120)
    errors = result.stdout.splitlines()
    assert [e for e in errors if "error" in e and "bad.ts(5," not in e] == [], result.stdout
    assert "Property 'attempt' does not exist on type 'PartView'" in result.stdout
