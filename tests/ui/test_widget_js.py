"""The widget's ES module (the bundle ``npm run build:widget`` writes): it parses, its
Markdown is complete and safe, and its view renders the protocol.

Node checks the syntax; a real Chromium (when installed) runs the Markdown renderer and
``render({model, el})`` with a small in-page model that records what the view sends.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parents[2] / "jupyter_agent" / "ui" / "static"
WIDGET_JS = STATIC / "widget.js"
NODE = shutil.which("node")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


@needs_node
def test_widget_js_parses() -> None:
    result = subprocess.run([NODE or "node", "--check", str(WIDGET_JS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------- the view in Chromium

PAGE = """
<div id="out"></div>
<script>
window.sent = [];
const handlers = new Set();
window.model = {
  state: { can_compact: true },
  get(key) { return this.state[key]; },
  on(name, fn) { if (name === "msg:custom") handlers.add(fn); },
  off(name, fn) { handlers.delete(fn); },
  send(msg) { window.sent.push(msg); },
};
window.deliver = (msg) => handlers.forEach((fn) => fn(msg));
</script>
"""


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser.new_page()
        browser.close()


def start_view(page: Any) -> str:
    page.set_content(PAGE)
    page.add_style_tag(content=(STATIC / "widget.css").read_text())
    # loaded as anywidget loads `_esm`: a module imported from a blob URL
    page.evaluate(
        """async (src) => {
            const url = URL.createObjectURL(new Blob([src], {type: "text/javascript"}));
            const m = await import(url);
            window.jaRender = m.default.render; window.jaMarkdown = m.markdown;
        }""",
        WIDGET_JS.read_text(),
    )
    page.wait_for_function("window.jaRender !== undefined && window.jaMarkdown !== undefined")
    # (a bare expression that evaluates to a function would be *called* by playwright)
    page.evaluate("() => { window.cleanup = window.jaRender({model, el: document.getElementById('out')}); }")
    ready = page.evaluate("window.sent[0]")
    assert ready["type"] == "ready" and ready["view"]
    return str(ready["view"])


def deliver(page: Any, *messages: dict[str, Any]) -> None:
    for message in messages:
        page.evaluate("(m) => window.deliver(m)", message)


def tid(page: Any, name: str) -> Any:
    return page.locator(f'[data-testid="{name}"]')


@pytest.mark.browser
def test_view_renders_a_replayed_and_streamed_turn(page: Any) -> None:
    view = start_view(page)
    deliver(page, {"kind": "notice", "text": "before replay: dropped, the replay has it"})
    text = {"id": "p1", "message_id": "m1", "type": "text", "text": "Hello "}
    state = [
        {"kind": "status", "state": "busy", "text": ""},
        {"kind": "message", "message": {"id": "m1", "role": "assistant", "agent": "build"}},
        {"kind": "part", "part": text},
    ]
    deliver(page, {"kind": "replay", "view": "someone-else", "messages": []})
    deliver(page, {"kind": "replay", "view": view, "messages": state})
    deliver(page, {"kind": "delta", "part_id": "p1", "field": "text", "text": "**world**"})
    page.wait_for_function("document.querySelector('[data-testid=ja-text] strong') !== null")
    assert tid(page, "ja-text").inner_text() == "Hello world"
    assert page.locator(".ja-notice").count() == 0
    assert tid(page, "ja-stop").is_visible()

    tool = {"id": "t1", "message_id": "m1", "type": "tool", "tool": "bash", "status": "running",
            "input": "ls -la"}  # fmt: skip
    deliver(page, {"kind": "part", "part": tool})
    assert tid(page, "ja-tool-status").inner_text() == "running"
    assert page.locator(".ja-badge .ja-spinner").count() == 1
    png = "data:image/png;base64," + PIXEL
    done = {
        **tool,
        "status": "completed",
        "output": "a\nb",
        "attachments": [{"mime": "image/png", "url": png}],
    }
    deliver(page, {"kind": "part", "part": done})
    assert tid(page, "ja-tool").count() == 1
    assert tid(page, "ja-tool-status").inner_text() == "completed"
    assert page.locator(".ja-tool details.ja-output pre").text_content() == "a\nb"  # collapsed
    assert page.locator(".ja-tool img").get_attribute("src") == png

    deliver(
        page,
        {
            "kind": "part",
            "part": {"id": "r1", "message_id": "m1", "type": "reasoning", "text": "hmm"},
        },
    )
    assert tid(page, "ja-reasoning").locator("summary").inner_text() == "Thinking…"
    gauge = {"tokens": 45678, "percent": 92, "text": "45,678 tokens · 92% used", "level": "high"}
    deliver(page, {"kind": "gauge", **gauge})
    assert tid(page, "ja-gauge").inner_text().startswith("45,678 tokens · 92% used")
    assert tid(page, "ja-gauge").get_attribute("data-level") == "high"

    tid(page, "ja-stop").click()
    assert page.evaluate("window.sent.at(-1)") == {"type": "stop"}
    deliver(page, {"kind": "status", "state": "idle", "text": ""})
    assert not tid(page, "ja-stop").is_visible()


@pytest.mark.browser
def test_view_shows_approvals_errors_retries_and_compaction(page: Any) -> None:
    view = start_view(page)
    deliver(page, {"kind": "replay", "view": view, "messages": []})
    request = {"id": "per_1", "permission": "bash", "patterns": ["git *"], "title": "git push"}
    deliver(page, {"kind": "permission", "request": request})
    tid(page, "ja-approve-always").click()
    assert page.evaluate("window.sent.at(-1)") == {
        "type": "approve",
        "request_id": "per_1",
        "reply": "always",
    }
    for name in ("ja-approve-once", "ja-approve-always", "ja-approve-reject"):
        assert tid(page, name).is_disabled()

    error = {"name": "rate_limit", "message": "slow down"}
    deliver(
        page,
        {
            "kind": "message",
            "message": {"id": "m2", "role": "assistant", "agent": "build", "error": error},
        },
    )
    assert tid(page, "ja-error").inner_text() == "Rate limited: slow down"

    retry = {"id": "rt", "message_id": "m2", "type": "retry", "attempt": 2, "error": "429"}
    page.evaluate("(p) => window.deliver({kind: 'part', part: {...p, next: Date.now() + 5000}})", retry)
    assert tid(page, "ja-retry").inner_text().startswith("Retrying in 5 s (attempt 2): 429")

    deliver(
        page,
        {"kind": "message", "message": {"id": "m3", "role": "user", "agent": "build"}},
        {
            "kind": "part",
            "part": {"id": "c1", "message_id": "m3", "type": "compaction", "auto": True},
        },
        {
            "kind": "message",
            "message": {"id": "m4", "role": "assistant", "agent": "compaction", "summary": True},
        },
        {
            "kind": "part",
            "part": {"id": "s1", "message_id": "m4", "type": "text", "text": "## Goal\nx"},
        },
        {"kind": "compacted"},
    )
    marker = tid(page, "ja-compaction")
    assert marker.count() == 1
    assert "history summarised above this point" in marker.inner_text()
    page.wait_for_function("document.querySelector('.ja-summary-body h2') !== null")
    assert not page.locator(".ja-summary-body h2").is_visible()  # collapsed until opened
    marker.locator("summary").click()
    assert page.locator(".ja-summary-body h2").inner_text() == "Goal"

    deliver(page, {"kind": "removed", "message_id": "m2"})
    assert tid(page, "ja-error").count() == 0 and tid(page, "ja-retry").count() == 0
    page.evaluate("window.cleanup()")


def markdown(page: Any, text: str) -> str:
    return str(page.evaluate("(t) => window.jaMarkdown(t)", text))


@pytest.mark.browser
def test_markdown_is_a_real_renderer(page: Any) -> None:
    """Issue 20 bug 3: bold code, nested lists and LaTeX; code is highlighted."""
    start_view(page)
    html = markdown(page, "# Title\nSome **bold**, *it*, `a*b*`, my_var_name.\n\n- one\n- two\n\n1. x\n")
    assert "<h1>Title</h1>" in html
    assert "<strong>bold</strong>" in html and "<em>it</em>" in html
    assert "<code>a*b*</code>" in html and "my_var_name" in html
    assert "**`df`**" not in (html := markdown(page, "Use **`df`** here."))
    assert "<strong><code>df</code></strong>" in html
    nested = markdown(page, "- outer\n  - inner\n    - deepest\n- next\n")
    assert nested.count("<ul>") == 3, nested
    math = markdown(page, "Euler: $e^{i\\pi} + 1 = 0$ and\n\n$$\\int_0^1 x\\,dx$$\n")
    assert "<math" in math and "$e^" not in math
    code = markdown(page, "```python\nif a < b:\n    pass\n```\nafter")
    assert '<pre class="ja-code" data-lang="python"><code class="language-python hljs">' in code
    assert '<span class="hljs-keyword">if</span>' in code and "a &lt; b" in code
    assert "<p>after</p>" in code
    assert "still streaming" in markdown(page, "```\nstill streaming")
    table = markdown(page, "| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert "<table>" in table and "<td>1</td>" in table


@pytest.mark.browser
def test_markdown_escapes_html_and_only_links_web_urls(page: Any) -> None:
    start_view(page)
    html = markdown(
        page, "<img src=x onerror=alert(1)> [ok](https://a.org/x_y_z?a=1&b=2) [bad](javascript:alert(1))"
    )
    assert "onerror" not in html
    assert '<a href="https://a.org/x_y_z?a=1&amp;b=2"' in html and 'target="_blank"' in html
    assert 'href="javascript' not in html
    assert "<script" not in markdown(page, "<script>alert(1)</script>")


@pytest.mark.browser
def test_the_loader_asks_for_the_code_once_per_page_and_renders_the_view(page: Any) -> None:
    """Later widgets carry the small loader: the first view asks the kernel for the code,
    every other view on the page reuses the module (code travels once per page)."""
    from jupyter_agent.ui.widget import CODE, loader_esm

    page.set_content(PAGE + '<div id="out2"></div>')
    page.evaluate(
        """async (src) => {
            window.sent = [];
            const url = URL.createObjectURL(new Blob([src], {type: "text/javascript"}));
            window.jaLoader = (await import(url)).default;
            window.first = window.jaLoader.render({model, el: document.getElementById('out')});
        }""",
        loader_esm(CODE, inline=False),
    )
    assert page.evaluate("window.sent") == [{"type": "code"}]
    deliver(page, {"kind": "code", "esm": CODE})
    page.wait_for_function("window.sent.some((m) => m.type === 'ready')")
    page.evaluate("() => window.jaLoader.render({model, el: document.getElementById('out2')})")
    page.wait_for_function("window.sent.filter((m) => m.type === 'ready').length === 2")
    assert [m["type"] for m in page.evaluate("window.sent")] == ["code", "ready", "ready"]
    view = page.evaluate("window.sent[1].view")
    text = {"id": "p1", "message_id": "m1", "type": "text", "text": "loaded"}
    deliver(page, {"kind": "replay", "view": view, "messages": [{"kind": "part", "part": text}]})
    # Text is rendered on the next animation frame: wait for the words, not for the empty node.
    page.wait_for_function(
        "document.querySelector('#out [data-testid=ja-text]')?.textContent.trim() === 'loaded'"
    )
    assert page.locator("#out [data-testid=ja-text]").inner_text() == "loaded"


@pytest.mark.browser
def test_an_earlier_page_takes_its_place_and_its_summary(page: Any) -> None:
    """The side panel loads a long session newest page first: messages of an earlier page go
    above by id, and a summary shown before its compaction marker arrived folds into it."""
    page = page.context.browser.new_page()  # not the loader test's window, whose globals stay
    view = start_view(page)

    def turn(mid: str, text: str, **message: Any) -> list[dict[str, Any]]:
        role = message.pop("role", "user")
        return [
            {"kind": "message", "message": {"id": mid, "role": role, "agent": "build", **message}},
            {"kind": "part", "part": {"id": f"p{mid}", "message_id": mid, "type": "text", "text": text}},
        ]

    newest = [*turn("m5", "summary of m1..m4", role="assistant", summary=True), *turn("m6", "newest")]
    deliver(page, {"kind": "replay", "view": view, "messages": [*newest, {"kind": "older", "session_id": "s",
                                                                          "before": "m5"}]})  # fmt: skip
    tid(page, "ja-older").click()
    assert page.evaluate("window.sent.at(-1)") == {"type": "older", "session_id": "s", "before": "m5"}
    assert tid(page, "ja-older").is_disabled()
    compaction = {"id": "c4", "message_id": "m4", "type": "compaction", "auto": True}
    deliver(page, *turn("m1", "first"), *turn("m3", "third"))
    deliver(page, {"kind": "message", "message": {"id": "m4", "role": "user", "agent": "build"}})
    deliver(page, {"kind": "part", "part": compaction}, {"kind": "older", "session_id": "s"})
    order = page.locator(".ja-stream > .ja-msg").evaluate_all("ns => ns.map(n => n.dataset.message)")
    assert order == ["m1", "m3", "m4", "m6"]  # m5, the summary, is inside m4's marker
    assert page.locator('[data-testid=ja-compaction] .ja-summary-body [data-message="m5"]').count() == 1
    assert tid(page, "ja-older").count() == 0  # nothing earlier is left
    page.close()


@pytest.mark.browser
def test_view_marks_hidden_state_and_shows_a_verification(page: Any) -> None:
    """The side panel's stream (the same renderer): the marker of a run that left hidden state
    with "Add as cell", then "added"; a verification's progress replaced by its table."""
    page = page.context.browser.new_page()  # not the loader test's window, whose globals stay
    view = start_view(page)
    deliver(page, {"kind": "replay", "view": view, "messages": []})
    marker = {
        "kind": "hidden_state",
        "run": "msg_1",
        "text": "`sales` was changed by the agent's code, not by a cell.",
        "names": ["sales"],
        "code": "sales = sales.dropna()",
        "cell_id": "c-agent",
    }
    deliver(page, marker)
    assert tid(page, "ja-hidden").locator("code").first.inner_text() == "sales"
    tid(page, "ja-add-cell").click()
    assert page.evaluate("window.sent.at(-1)") == {"type": "add_cell", "run": "msg_1", "cell_id": "c-agent"}
    assert tid(page, "ja-add-cell").is_disabled()
    deliver(page, {**marker, "added": "c-new"})
    assert tid(page, "ja-hidden").count() == 1 and tid(page, "ja-add-cell").count() == 0
    assert tid(page, "ja-hidden-added").inner_text() == "Added as a cell below the run."

    deliver(page, {"kind": "verify", "state": "running", "text": "Verifying a.ipynb: cell 2 (1 of 3)"})
    rows = [
        {"label": "cell 1 [1]", "status": "ran", "detail": ""},
        {"label": "cell 3 [3]", "status": "differs", "detail": "printed output: saved '3', now '4'"},
    ]
    done = {
        "kind": "verify",
        "state": "done",
        "text": "Not reproducible: 1 differs",
        "rows": rows,
        "reproducible": False,
    }
    deliver(page, done)
    assert tid(page, "ja-verify").count() == 1  # the progress became the table
    assert (
        page.locator(".ja-verify-table tr[data-status=differs] td").nth(2).inner_text().startswith("printed")
    )
    tid(page, "ja-verify-fix").click()
    assert page.evaluate("window.sent.at(-1)") == {"type": "fix", "verify": True}
    page.evaluate("window.cleanup()")
