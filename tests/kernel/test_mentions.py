"""``@`` mentions in prompts: what is found, and what is not a mention."""

from __future__ import annotations

from jupyter_agent.kernel.mentions import parse_mentions, subtask_prefix


def mentions(text: str) -> list[tuple[str, str]]:
    return [(m.kind, m.value) for m in parse_mentions(text)]


def test_mention_kinds() -> None:
    found = parse_mentions("compare @df with @cell:3, @cell:a1B2-c3_d and @file:data/sales.csv.")
    assert [(m.kind, m.value, m.text) for m in found] == [
        ("var", "df", "@df"),
        ("cell", "3", "@cell:3"),
        ("cell", "a1B2-c3_d", "@cell:a1B2-c3_d"),
        ("file", "data/sales.csv", "@file:data/sales.csv"),
    ]
    assert found[0].start == len("compare ")


def test_mention_edges() -> None:
    assert mentions("mail me at a@b.com or x.y@corp.org") == []
    assert mentions("see https://host.org/@user and C:@x") == []
    assert mentions("(@df) and @df2's shape, @_private.") == [
        ("var", "df"), ("var", "df2"), ("var", "_private"),
    ]  # fmt: skip
    assert mentions("@df.head() then @my_var") == [("var", "df"), ("var", "my_var")]
    assert mentions('read @file:"my data.csv" and @file:\'b c.txt\'') == [
        ("file", "my data.csv"), ("file", "b c.txt"),
    ]  # fmt: skip
    assert mentions("in `@dataclass` and\n```\n@decorator\n```\nbut @real") == [("var", "real")]
    assert mentions("@ alone, @1abc, @@x") == []


def test_subtask_prefix_is_not_a_mention() -> None:
    assert mentions("@explore where is @df built?") == [("var", "df")]
    assert mentions("  @general summarise @file:a.md") == [("file", "a.md")]
    assert subtask_prefix("@explore find it") == "explore"
    assert subtask_prefix("@general x") == "general"
    assert subtask_prefix("@explorer x") is None
    assert subtask_prefix("ask @explore later") is None
    assert mentions("ask @explore later") == [("var", "explore")]  # not at the start
    assert mentions("@build it") == [("var", "build")]
