"""Token counts: tiktoken from files shipped with litellm (never downloaded), else 4 chars/token.

Counts are cached per part and content, so a loop step counts only what is new.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

CHARS_PER_TOKEN = 4
CACHE_SIZE = 50_000


def estimate(text: str) -> int:
    """OpenCode's estimate: characters / 4, rounded."""
    return max(0, round(len(text) / CHARS_PER_TOKEN))


def tokenizer_dir() -> Path | None:
    """litellm's bundled tiktoken files (offline), or None when litellm is not installed."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


@lru_cache(maxsize=1)
def _encoding() -> Any:
    """o200k (or cl100k) from local files only; None when they are not available offline."""
    folder = tokenizer_dir()
    if folder is None and "TIKTOKEN_CACHE_DIR" not in os.environ:
        return None
    if folder is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))
    cache = Path(os.environ["TIKTOKEN_CACHE_DIR"])
    try:
        # tiktoken loads on the first count, not with the context package
        import tiktoken
    except ImportError:
        return None

    for name, url in (
        ("o200k_base", "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"),
        ("cl100k_base", "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"),
    ):
        if (cache / hashlib.sha1(url.encode()).hexdigest()).is_file():
            return tiktoken.get_encoding(name)
    return None


def backend() -> str:
    """``tiktoken:<encoding>`` or ``estimate`` — which counter is in use."""
    enc = _encoding()
    return f"tiktoken:{enc.name}" if enc is not None else "estimate"


def count_tokens(text: str) -> int:
    if not text:
        return 0
    enc = _encoding()
    if enc is None:
        return estimate(text)
    return len(enc.encode(text, disallowed_special=()))


class TokenCounter:
    """Counts with an LRU cache keyed by (part id, length, content hash) so old parts cost nothing.

    The hash makes an edit that keeps a text's length count again; a ``str`` caches its
    own hash, so a text that did not change costs nothing to look up.
    """

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._cache: OrderedDict[tuple[str, int, int], int] = OrderedDict()
        self._size = size

    def count(self, text: str, key: str | None = None) -> int:
        if key is None:
            return count_tokens(text)
        k = (key, len(text), hash(text))
        hit = self._cache.get(k)
        if hit is not None:
            self._cache.move_to_end(k)
            return hit
        value = count_tokens(text)
        self._cache[k] = value
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return value
