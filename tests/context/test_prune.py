"""SPEC "Prune": protected turns, 40k protect, 20k minimum, skill, stop points."""

from __future__ import annotations

from helpers import assistant, tool, user

from jupyter_agent.context.prune import select_prune
from jupyter_agent.context.tokens import TokenCounter


class Counter(TokenCounter):
    """One token per character, so the thresholds are easy to reason about."""

    def count(self, text: str, key: str | None = None) -> int:
        return len(text)


def _turn(*outputs: int, name: str = "read"):  # type: ignore[no-untyped-def]
    u = user()
    return [u, assistant(u, *[tool(name, "x" * n) for n in outputs])]


def test_last_two_turns_are_never_pruned() -> None:
    history = _turn(50_000) + _turn(50_000)
    assert select_prune(history, Counter()) == []


def test_crossing_part_and_older_are_pruned() -> None:
    old = _turn(30_000, 30_000, 30_000)
    history = old + _turn(10) + _turn(10)
    ids = select_prune(history, Counter())
    parts = old[1].parts
    # newest first: 30k kept (total 30k), 30k crosses 40k → pruned, oldest pruned
    assert ids == [parts[1].id, parts[0].id]


def test_all_or_nothing_below_minimum() -> None:
    old = _turn(39_000, 15_000)
    history = old + _turn(10) + _turn(10)
    # newest 15k kept; 39k crosses 40k (total 54k) → pruned = 39k > 20k
    assert len(select_prune(history, Counter())) == 1
    small = _turn(39_000, 10_000) + _turn(10) + _turn(10)
    # 10k kept, 39k crosses → pruned 39k; but with protect at 45k nothing crosses
    assert select_prune(small, Counter(), protect=60_000) == []
    tiny = _turn(30_000, 15_000) + _turn(10) + _turn(10)
    # 15k kept, 30k crosses (45k) → pruned 30k > 20k
    assert len(select_prune(tiny, Counter())) == 1
    just = _turn(15_000, 35_000) + _turn(10) + _turn(10)
    # 35k kept, 15k crosses (50k) → pruned 15k, not > 20k → nothing
    assert select_prune(just, Counter()) == []


def test_skill_outputs_are_never_pruned() -> None:
    old = _turn(30_000, name="skill") + _turn(50_000, 50_000)
    history = old + _turn(10) + _turn(10)
    ids = select_prune(history, Counter())
    skill_part = old[1].parts[0]
    assert skill_part.id not in ids and len(ids) == 2  # 50k crosses 40k: both pruned


def test_stops_at_already_pruned_part() -> None:
    older = _turn(50_000)
    u = user()
    first = assistant(u, tool(output="x" * 50_000, compacted=5))
    history = [*older, u, first, *_turn(50000, 50000), *_turn(10), *_turn(10)]
    ids = select_prune(history, Counter())
    assert len(ids) == 2  # the scan stops at the pruned part: nothing older is revisited
    assert first.parts[0].id not in ids and older[1].parts[0].id not in ids


def test_stops_at_summary() -> None:
    u = user()
    summary = assistant(u, "summary text", summary=True)
    before = _turn(90_000)
    history = [*before, u, summary, *_turn(50000), *_turn(10), *_turn(10)]
    assert before[1].parts[0].id not in select_prune(history, Counter())
