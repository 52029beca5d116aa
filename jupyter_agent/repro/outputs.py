"""Do a cell's fresh outputs say the same as the ones the notebook saved?

What legitimately changes between two runs is normalised away first: memory addresses
(``<Foo at 0x7f…>``), timestamps and timings, random ids in HTML (plotly, altair), the
temporary file a traceback names. Numbers with a fraction or an exponent compare within
a relative tolerance (float noise: ``0.30000000000000004`` is ``0.3``); integers and the
rest of the text compare exactly. Images compare by their pixel size, not their bytes
(anti-aliasing and library versions change bytes). stderr is not compared: warnings,
progress bars and log lines differ from run to run.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

PREFERENCE = (
    "text/html",
    "text/markdown",
    "text/latex",
    "application/json",
    "text/plain",
)
IMAGE_PREFIX = "image/"
WIDGET = "application/vnd.jupyter.widget-view+json"
EXCERPT = 160
_NUMBER = re.compile(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")
_SUBSTITUTIONS = (
    (re.compile(r"\b0x[0-9a-fA-F]{6,16}\b"), "0x…"),
    (
        re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
        "<uuid>",
    ),
    (re.compile(r"\b(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{16,64}\b"), "<id>"),
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"),
        "<timestamp>",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b"), "<time>"),
    (re.compile(r"^(?:CPU times|Wall time):.*$", re.MULTILINE), "<timing>"),
    (re.compile(r"[^\s\"'<>]*ipykernel_\d+[/\\]\d+\.py"), "<cell>"),
    (re.compile(r"<ipython-input-\d+-[0-9a-f]+>"), "<cell>"),
    (re.compile(r"[ \t]+$", re.MULTILINE), ""),
)


@dataclass(frozen=True)
class Tolerance:
    float_rel: float = 1e-6
    float_abs: float = 1e-12


@dataclass(frozen=True)
class OutputDiff:
    """The first difference: where (``stdout``, ``text/html``, ``image/png``, ``error``…),
    and the first differing line of each side."""

    what: str
    saved: str
    fresh: str

    def line(self) -> str:
        return f"{self.what}: saved {self.saved!r}, now {self.fresh!r}"


def normalise(text: str) -> str:
    for pattern, replacement in _SUBSTITUTIONS:
        text = pattern.sub(replacement, text)
    return text.replace("\r\n", "\n").strip("\n")


def _is_float(token: str) -> bool:
    return "." in token or "e" in token or "E" in token


def same_text(saved: str, fresh: str, tol: Tolerance = Tolerance()) -> bool:
    """Equal after normalising, numbers with a fraction within ``tol``."""
    a, b = normalise(saved), normalise(fresh)
    if a == b:
        return True
    pieces_a, pieces_b = _NUMBER.split(a), _NUMBER.split(b)
    if len(pieces_a) != len(pieces_b):
        return False
    for index, (x, y) in enumerate(zip(pieces_a, pieces_b, strict=True)):
        if x == y:
            continue
        if index % 2 == 0 or not (_is_float(x) and _is_float(y)):
            return False
        if not math.isclose(float(x), float(y), rel_tol=tol.float_rel, abs_tol=tol.float_abs):
            return False
    return True


def first_difference(what: str, saved: str, fresh: str, tol: Tolerance = Tolerance()) -> OutputDiff:
    lines_a, lines_b = normalise(saved).split("\n"), normalise(fresh).split("\n")
    for index in range(max(len(lines_a), len(lines_b))):
        x = lines_a[index] if index < len(lines_a) else ""
        y = lines_b[index] if index < len(lines_b) else ""
        if not same_text(x, y, tol):
            return OutputDiff(what, _excerpt(x), _excerpt(y))
    return OutputDiff(what, _excerpt(saved), _excerpt(fresh))


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    if isinstance(value, dict | int | float | bool) or value is None:
        return json.dumps(value, sort_keys=True)
    return str(value)


# ---------------------------------------------------------------- images


def image_size(mime: str, data: Any) -> tuple[int, int] | None:
    """(width, height) of a PNG, GIF, JPEG or SVG output; None when it cannot be read."""
    text = _text(data)
    if mime == "image/svg+xml":
        found = re.search(
            r"<svg[^>]*?\bwidth=\"([\d.]+)[a-z]*\"[^>]*?\bheight=\"([\d.]+)[a-z]*\"", text, re.S
        )
        return (round(float(found.group(1))), round(float(found.group(2)))) if found else None
    try:
        raw = base64.b64decode(text.strip().replace("\n", ""), validate=False)
    except (binascii.Error, ValueError):
        return None
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) >= 24:
        width, height = struct.unpack(">II", raw[16:24])
        return width, height
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        width, height = struct.unpack("<HH", raw[6:10])
        return width, height
    if raw[:2] == b"\xff\xd8":
        return _jpeg_size(raw)
    return None


def _jpeg_size(raw: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 9 < len(raw):
        if raw[at] != 0xFF:
            return None
        marker = raw[at + 1]
        length = struct.unpack(">H", raw[at + 2 : at + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", raw[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None


# ---------------------------------------------------------------- outputs


def _stream(outputs: list[dict[str, Any]], name: str) -> str:
    return "".join(
        _text(o.get("text", ""))
        for o in outputs
        if o.get("output_type") == "stream" and o.get("name") == name
    )


def _rich(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        o.get("data") or {} for o in outputs if o.get("output_type") in ("display_data", "execute_result")
    ]


def _error(outputs: list[dict[str, Any]]) -> str | None:
    for o in outputs:
        if o.get("output_type") == "error":
            return f"{o.get('ename', '')}: {o.get('evalue', '')}"
    return None


def _compare_data(saved: dict[str, Any], fresh: dict[str, Any], tol: Tolerance) -> OutputDiff | None:
    images_a = sorted(m for m in saved if m.startswith(IMAGE_PREFIX))
    images_b = sorted(m for m in fresh if m.startswith(IMAGE_PREFIX))
    if images_a or images_b:
        if not (images_a and images_b):
            return OutputDiff("image", ", ".join(images_a) or "no image", ", ".join(images_b) or "no image")
        image = images_a[0] if images_a[0] in images_b else images_b[0]
        size_a, size_b = image_size(image, saved.get(image, "")), image_size(image, fresh.get(image, ""))
        if image not in saved or image not in fresh or size_a != size_b:
            return OutputDiff(image, _size(saved, image, size_a), _size(fresh, image, size_b))
        return None
    if WIDGET in saved or WIDGET in fresh:  # widget state lives outside the output: its view only
        return (
            None
            if (WIDGET in saved) == (WIDGET in fresh)
            else OutputDiff("widget", str(WIDGET in saved), str(WIDGET in fresh))
        )
    mime = next((m for m in PREFERENCE if m in saved and m in fresh), None)
    if mime is None:
        return OutputDiff("mime types", ", ".join(sorted(saved)), ", ".join(sorted(fresh)))
    a, b = _text(saved[mime]), _text(fresh[mime])
    return None if same_text(a, b, tol) else first_difference(mime, a, b, tol)


def _size(data: dict[str, Any], mime: str, size: tuple[int, int] | None) -> str:
    if mime not in data:
        return "no " + mime
    return f"{size[0]}×{size[1]} image" if size else "an image"


def compare_outputs(
    saved: list[dict[str, Any]], fresh: list[dict[str, Any]], tol: Tolerance = Tolerance()
) -> OutputDiff | None:
    """The first way ``fresh`` differs from ``saved`` (nbformat v4 outputs), else None."""
    a, b = _stream(saved, "stdout"), _stream(fresh, "stdout")
    if not same_text(a, b, tol):
        return first_difference("printed output", a, b, tol)
    error_a, error_b = _error(saved), _error(fresh)
    if (error_a is None) != (error_b is None) or (
        error_a and error_b and not same_text(error_a, error_b, tol)
    ):
        return OutputDiff("error", error_a or "no error", error_b or "no error")
    rich_a, rich_b = _rich(saved), _rich(fresh)
    for data_a, data_b in zip(rich_a, rich_b, strict=False):
        found = _compare_data(data_a, data_b, tol)
        if found is not None:
            return found
    if len(rich_a) != len(rich_b):
        return OutputDiff("displayed outputs", f"{len(rich_a)} outputs", f"{len(rich_b)} outputs")
    return None
