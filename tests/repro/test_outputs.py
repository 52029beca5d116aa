"""A cell's fresh outputs against its saved ones (``repro/outputs.py``)."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import pytest

from jupyter_agent.repro.outputs import Tolerance, compare_outputs, image_size, normalise, same_text


def stdout(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def result(data: dict[str, Any]) -> dict[str, Any]:
    return {"output_type": "execute_result", "data": data, "metadata": {}, "execution_count": 1}


def png(width: int, height: int, colour: int = 0) -> str:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\x00" + bytes([colour]) * width for _ in range(height))
    raw = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize(
    ("saved", "fresh"),
    [
        ("<Model object at 0x7f3a2b1c9d40>", "<Model object at 0x7f99aa001230>"),
        ("started 2024-05-01T10:11:12.123456Z", "started 2025-01-02 03:04:05"),
        ("done at 10:11:12", "done at 23:59:01"),
        ("CPU times: user 3 ms\nWall time: 4.1 ms\n42", "CPU times: user 9 ms\nWall time: 12 ms\n42"),
        (
            '<div id="8f14e45f-ceea-467f-a0e6-3f1c5a2b9d70">',
            '<div id="0b7e2c4a-1d3f-4e5a-9b8c-7d6e5f4a3b2c">',
        ),
        ("0.30000000000000004", "0.3"),
        ("mean 1.2345678901", "mean 1.2345678902"),
        ('File "/tmp/ipykernel_123/456.py", line 3', 'File "/tmp/ipykernel_999/111.py", line 3'),
        ("trailing   \nspace", "trailing\nspace"),
    ],
)
def test_what_changes_between_runs_is_not_a_difference(saved: str, fresh: str) -> None:
    assert same_text(saved, fresh), (normalise(saved), normalise(fresh))


@pytest.mark.parametrize(
    ("saved", "fresh"),
    [
        ("3 295", "4 290"),  # integers compare exactly
        ("mean 1.25", "mean 1.35"),
        ("sales", "sale"),
        ("0.3", "0.3 extra"),
        ("2024-01-05", "2024-01-06"),  # a date is data, not a clock
    ],
)
def test_real_differences_stay(saved: str, fresh: str) -> None:
    assert not same_text(saved, fresh)


def test_float_tolerance_is_configurable() -> None:
    assert not same_text("1.000", "1.001")
    assert same_text("1.000", "1.001", Tolerance(float_rel=1e-2))


def test_printed_output_differs_with_the_first_differing_line() -> None:
    found = compare_outputs([stdout("rows\n3 295\n")], [stdout("rows\n"), stdout("4 290\n")])
    assert found is not None and (found.what, found.saved, found.fresh) == (
        "printed output",
        "3 295",
        "4 290",
    )


def test_stderr_is_not_compared_and_streams_are_joined() -> None:
    saved = [stdout("a"), stdout("b\n"), {"output_type": "stream", "name": "stderr", "text": "warning"}]
    assert compare_outputs(saved, [stdout("ab\n")]) is None


def test_html_is_preferred_to_plain_text_when_both_have_it() -> None:
    saved = [result({"text/html": "<b>1</b>", "text/plain": "x at 0x7f00aa11bb22"})]
    assert compare_outputs(saved, [result({"text/html": "<b>1</b>", "text/plain": "other"})]) is None
    found = compare_outputs(saved, [result({"text/html": "<b>2</b>", "text/plain": "x"})])
    assert found is not None and found.what == "text/html"


def test_images_compare_by_size_not_bytes() -> None:
    assert image_size("image/png", png(4, 3)) == (4, 3)
    same_size = compare_outputs(
        [result({"image/png": png(4, 3, 0)})], [result({"image/png": png(4, 3, 200)})]
    )
    assert same_size is None
    found = compare_outputs([result({"image/png": png(4, 3)})], [result({"image/png": png(8, 3)})])
    assert found is not None and found.what == "image/png" and "4×3" in found.saved and "8×3" in found.fresh
    gone = compare_outputs(
        [result({"image/png": png(4, 3), "text/plain": "<Figure>"})], [result({"text/plain": "x"})]
    )
    assert gone is not None and gone.what == "image"


def test_svg_size_is_read_from_its_root() -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="460.8pt" height="345.6pt" viewBox="0 0 1 1"></svg>'
    assert image_size("image/svg+xml", svg) == (461, 346)


def test_errors_counts_and_widgets() -> None:
    error = {"output_type": "error", "ename": "KeyError", "evalue": "'x'", "traceback": []}
    assert compare_outputs([error], [dict(error, traceback=["other frames"])]) is None
    found = compare_outputs([], [error])
    assert found is not None and found.what == "error"
    extra = compare_outputs(
        [result({"text/plain": "1"})], [result({"text/plain": "1"}), result({"text/plain": "2"})]
    )
    assert extra is not None and extra.what == "displayed outputs"
    widget = {"application/vnd.jupyter.widget-view+json": {"model_id": "a1"}, "text/plain": "Slider"}
    assert (
        compare_outputs(
            [result(widget)],
            [result(dict(widget, **{"application/vnd.jupyter.widget-view+json": {"model_id": "b2"}}))],
        )
        is None
    )
