"""Calls made for a session outside its messages (its title): stored per session, counted in
every session total, gone with the session."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.core.messages import AssistantMessage, Session, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.ui.cell_output import NoView
from jupyter_agent.ui.live_gauge import LiveGauge


def test_title_costs_add_to_the_session_and_go_with_it(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1", directory=str(tmp_path)))
    store.update_message(UserMessage(id="msg_1", session_id="ses_1"))
    store.update_message(
        AssistantMessage(id="msg_2", session_id="ses_1", parent_id="msg_1", cost=0.01, finish="stop")
    )
    store.add_call_cost("ses_1", "title", "openai/gpt-4o-mini", 0.002)
    assert store.session_costs()["ses_1"].usd == pytest.approx(0.012)
    gauge = LiveGauge(NoView(), "ses_1", 10_000, store)  # the widget's and the panel's total
    assert gauge.costs.text("msg_1") == "$0.0100 this prompt · $0.0120 session"
    store.add_call_cost("ses_1", "title", "openai/unpriced", None)  # no price: unknown, never $0
    assert store.session_costs()["ses_1"].text() == "$0.0120 + unknown"
    # a session stale in memory, written back, keeps what was spent (rows, not a session field)
    store.update_session(Session(id="ses_1", directory=str(tmp_path), title="renamed"))
    assert store.call_costs("ses_1")["ses_1"].usd == pytest.approx(0.002)
    store.delete_session("ses_1")
    assert store.call_costs() == {} and store.session_costs() == {}
    store.close()
