"""SPEC "Truncation of each tool result": units, direction, multibyte, hints, format."""

from __future__ import annotations

from jupyter_agent.context.truncate import HINT_PLAIN, HINT_TASK, truncate_output

saved: list[str] = []


def save(text: str) -> str:
    saved.append(text)
    return "/tmp/tool_x"


def test_within_limits_is_unchanged() -> None:
    text = "\n".join(str(i) for i in range(2000))
    result = truncate_output(text, save=save)
    assert result.content == text and not result.truncated and result.output_path is None


def test_head_by_lines() -> None:
    text = "\n".join(str(i) for i in range(1, 5001))
    result = truncate_output(text, save=save)
    head, _, rest = result.content.partition("\n\n...")
    assert head.split("\n") == [str(i) for i in range(1, 2001)]
    assert rest.startswith(
        "3000 lines truncated...\n\nThe tool call succeeded but the output was truncated. "
        "Full output saved to: /tmp/tool_x\n"
    )
    assert result.content.endswith(HINT_PLAIN) and saved[-1] == text


def test_tail_by_lines_matches_opencode_bash() -> None:
    text = "\n".join(str(i) for i in range(1, 5001)) + "\n"
    result = truncate_output(text, direction="tail", has_task_tool=True, save=save)
    assert result.content.startswith("...3001 lines truncated...\n\n")  # 5,001 split lines − 2,000
    assert HINT_TASK in result.content
    preview = result.content.split(HINT_TASK + "\n\n", 1)[1]
    assert preview.split("\n")[0] == "3002" and preview.endswith("5000\n")
    assert len(preview.split("\n")) == 2000  # 1,999 lines + the empty last line


def test_byte_limit_counts_bytes() -> None:
    text = "\n".join("x" * 100 for _ in range(1000))  # 101,000 bytes, 1000 lines
    result = truncate_output(text, save=save)
    kept = result.content.split("\n\n...")[0]
    assert len(kept.encode()) <= 51_200
    removed = int(result.content.split("\n\n...")[1].split(" ")[0])
    assert removed == len(text.encode()) - len(kept.encode())
    assert "bytes truncated" in result.content


def test_multibyte_line_at_the_byte_boundary_is_dropped_whole() -> None:
    line = "é" * 1000  # 2,000 bytes per line
    text = "\n".join([line] * 40)  # 80,039 bytes
    result = truncate_output(text, max_bytes=5_000, save=save)
    kept = result.content.split("\n\n...")[0].split("\n")
    assert kept == [line, line]  # the third would need 6,002 bytes
    assert result.content.encode("utf-8")  # never a broken character


def test_custom_limits() -> None:
    result = truncate_output("a\nb\nc\nd", max_lines=2, save=save)
    assert result.content.startswith("a\nb\n\n...2 lines truncated...")
