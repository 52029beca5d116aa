"""Wrappers for untrusted text (cell outputs, mentioned files) that the text cannot close.

A fixed ``</notebook_cells>`` can be printed by any cell, ending the "data, not
instructions" block early and letting what follows pass as ours. Each block gets a tag
with a fresh random suffix (``<notebook_cells_3f9a0c1d>``) that its content cannot know
in advance; a body that happens to contain it gets another one.
"""

from __future__ import annotations

import html
import secrets


def fence_tag(kind: str, body: str) -> str:
    """``kind`` plus a random suffix that does not occur in ``body``."""
    while True:
        tag = f"{kind}_{secrets.token_hex(4)}"
        if tag not in body:
            return tag


def fence(kind: str, body: str, **attributes: str) -> str:
    r"""``<kind_xxxxxxxx a="…">\nbody\n</kind_xxxxxxxx>`` with attribute values escaped."""
    tag = fence_tag(kind, body)
    attrs = "".join(f' {name}="{html.escape(value, quote=True)}"' for name, value in attributes.items())
    return f"<{tag}{attrs}>\n{body}\n</{tag}>"
