"""Code blocks of the saved transcript, highlighted with Pygments as nbconvert does.

``jupyter nbconvert --to html`` styles Markdown code with Pygments' CSS classes under
``.highlight`` (the box and the token colours of its lab template); a bare
``<pre><code>`` there has neither. So the transcript writes what nbconvert writes for a
Markdown cell's fenced code, and keeps ``<code class="language-xxx">`` inside it: the
side panel's extension re-highlights that in JupyterLab and adds the code actions.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

MAX_HIGHLIGHT = 200_000
"""Characters highlighted at most: a longer block is shown escaped, not tokenised."""


@lru_cache(maxsize=1)
def _formatter() -> Any:
    return HtmlFormatter(nowrap=True)


def _lexer(lang: str) -> Any:
    if not lang:
        return None
    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlighted(code: str, lang: str) -> str:
    """The tokens of ``code`` as Pygments ``<span class="k">`` HTML (escaped plain text for
    an unknown language or a huge block)."""
    lexer = _lexer(lang) if len(code) <= MAX_HIGHLIGHT else None
    if lexer is None:
        return html.escape(code, quote=False)
    return str(highlight(code, lexer, _formatter())).rstrip("\n")


# nbconvert's lab CSS paints `pre` and `code` in the page colour over `.highlight`'s editor
# background and gives them no padding: inline styles keep the box (JupyterLab variables, so
# `--theme dark` follows; plain fallbacks elsewhere). The panel's CSS replaces them in Lab.
BOX = (
    "background: var(--jp-cell-editor-background, #f7f7f7); "
    "border: 1px solid var(--jp-cell-editor-border-color, #e0e0e0); "
    "border-radius: 3px; margin: 0.5em 0; overflow-x: auto"
)
PRE = "background: transparent; margin: 0; padding: 6px 8px; white-space: pre"
CODE = "background: transparent; padding: 0"


def code_block(code: str, lang: str = "") -> str:
    """``<div class="highlight"><pre><code class="language-xxx">…</code></pre></div>``."""
    lang = (lang or "").strip().split(" ")[0].lower()
    cls = f' class="language-{html.escape(lang, quote=True)}"' if lang else ""
    hl = f" hl-{html.escape(lang, quote=True)}" if lang else ""
    body = highlighted(code.rstrip("\n"), lang)
    return (
        f'<div class="highlight{hl}" style="{BOX}"><pre style="{PRE}">'
        f'<code{cls} style="{CODE}">{body}</code></pre></div>'
    )
