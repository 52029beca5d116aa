"""Ids sort by creation time as plain strings; the store and context code rely on it."""

from __future__ import annotations

import time

from jupyter_agent.core import ids


def test_ids_made_later_sort_later() -> None:
    made = [ids.ascending("prt") for _ in range(5_000)]
    assert made == sorted(made)
    assert len(set(made)) == len(made)


def test_ids_across_milliseconds_and_prefixes() -> None:
    first = ids.ascending("msg")
    time.sleep(0.005)
    second = ids.ascending("msg")
    assert first < second
    assert first.startswith("msg_") and ids.ascending("ses").startswith("ses_")


def test_timestamp_round_trip() -> None:
    before = int(time.time() * 1000)
    made = ids.ascending("ses")
    after = int(time.time() * 1000)
    assert before <= ids.timestamp_ms(made) <= after + 1
