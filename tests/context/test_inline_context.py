"""What an inline completion carries: the budget's order, redaction, both prompt shapes, and
how a chat model's answer is cleaned into a suggestion."""

from __future__ import annotations

import pytest

from jupyter_agent.context.inline_context import (
    CHARS_PER_TOKEN,
    CURSOR,
    InlineContext,
    Suggestion,
    chat_messages,
    fim_prompt,
    fit,
)

NAMES = ["sales: DataFrame 3 rows × 3 columns: month (str), region (str), revenue (float64)", "n: int = 5"]


def test_everything_fits_in_a_roomy_budget() -> None:
    ctx = fit("x = 1\nsales.groupby(", ")\n", NAMES, ["import pandas as pd", "", "n = 5"], 2000)
    assert ctx == InlineContext(
        "x = 1\nsales.groupby(", ")\n", tuple(NAMES), ("import pandas as pd", "n = 5")
    )


def test_the_budget_keeps_what_is_nearest_the_cursor() -> None:
    prefix = "".join(f"line_{i} = {i}\n" for i in range(400)) + "total = "
    suffix = "".join(f"after_{i} = {i}\n" for i in range(400))
    cells = [f"cell_{i} = {i}" for i in range(100)]
    ctx = fit(prefix, suffix, NAMES, cells, budget_tokens=300)
    assert ctx.chars() <= 300 * CHARS_PER_TOKEN
    assert ctx.prefix.endswith("line_399 = 399\ntotal = ")
    assert ctx.prefix.startswith("line_") and "line_0 =" not in ctx.prefix  # cut at a line start
    assert ctx.suffix.startswith("after_0 = 0\n") and "after_399" not in ctx.suffix
    assert ctx.names == tuple(NAMES)
    assert ctx.cells_above and ctx.cells_above[-1] == "cell_99 = 99"  # the nearest cells, in order
    assert list(ctx.cells_above) == cells[-len(ctx.cells_above) :]


def test_names_give_way_to_the_cell_and_a_long_line_does_not_block_short_ones() -> None:
    names = ["huge: " + "x" * 5000, "small: int = 1"]
    ctx = fit("a = ", "", names, [], budget_tokens=200)
    assert ctx.names == ("small: int = 1",)


def test_an_older_cell_never_skips_over_a_nearer_one_that_did_not_fit() -> None:
    ctx = fit("y = ", "", [], ["import pandas as pd", "data = " + "1, " * 3000, "z = 2"], 300)
    assert ctx.cells_above == ("z = 2",)


def test_secrets_are_redacted_everywhere_before_the_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-0123456789abcdef"
    monkeypatch.setenv("SERVICE_API_KEY", secret)
    ctx = fit(
        f'client = Client(key="{secret}")\nclient.',
        f"# {secret}",
        [f"token: str = '{secret}'"],
        [f'KEY = "{secret}"'],
        2000,
    )
    for text in (ctx.prefix, ctx.suffix, *ctx.names, *ctx.cells_above):
        assert secret not in text and "[REDACTED:SERVICE_API_KEY]" in text


def test_the_chat_shape_asks_for_the_continuation_at_the_cursor() -> None:
    ctx = fit('sales.groupby("', "\nprint(1)", NAMES, ["import pandas as pd"], 2000)
    system, user = chat_messages(ctx, "INSTRUCTIONS")
    assert system == {"role": "system", "content": "INSTRUCTIONS"}
    content = user["content"]
    assert isinstance(content, str)
    assert f'sales.groupby("{CURSOR}\nprint(1)' in content
    assert "Live variables in the kernel:\n" + NAMES[0] in content
    assert "```python\nimport pandas as pd\n```" in content


def test_the_fill_in_the_middle_shape_puts_the_context_before_the_cell() -> None:
    ctx = fit('sales.groupby("', ")", NAMES, ["import pandas as pd"], 2000)
    prompt = fim_prompt(ctx)
    assert prompt.startswith("# Live variables in the kernel:\n# sales: DataFrame")
    assert prompt.endswith('import pandas as pd\n\nsales.groupby("')
    assert fim_prompt(InlineContext("x = ", "")) == "x = "


def _clean(pieces: list[str], prefix: str = 'sales.groupby("') -> str:
    shown = Suggestion(prefix)
    return "".join(shown.feed(p) for p in pieces) + shown.flush()


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (['month").', "sum()"], 'month").sum()'),
        (["``", "`python\nmon", 'th")', "\n```\nthat is all"], 'month")'),
        (["sales.gro", 'upby("month")'], 'month")'),  # the current line said again
        (["sal", "ary"], "salary"),  # not an echo after all
        (['month")\n\n', "  "], 'month")'),  # no trailing blank lines
        (['month")', "<CUR", "SOR>rest"], 'month")'),
        (["a = `b`"], "a = `b`"),
        ([], ""),
    ],
)
def test_a_chat_answer_becomes_the_text_to_insert(pieces: list[str], expected: str) -> None:
    assert _clean(pieces) == expected


def test_blank_space_inside_the_suggestion_comes_out_with_what_follows() -> None:
    shown = Suggestion("x = ")
    assert shown.feed("1\n") == "1"
    assert shown.feed("y = 2") == "\ny = 2"
    assert shown.flush() == ""
