"""The bus delivers in order, filters by type, and survives a failing subscriber."""

from __future__ import annotations

import logging

import pytest

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import AnyEvent, SessionCompacted, SessionDeleted


def test_publish_filters_and_unsubscribes() -> None:
    bus = Bus()
    seen: list[str] = []
    only_deleted: list[str] = []
    off = bus.subscribe(lambda e: seen.append(e.type))
    bus.subscribe(lambda e: only_deleted.append(e.type), "session.deleted")
    bus.publish(SessionCompacted(session_id="ses_1"))
    bus.publish(SessionDeleted(session_id="ses_1"))
    off()
    bus.publish(SessionDeleted(session_id="ses_2"))
    assert seen == ["session.compacted", "session.deleted"]
    assert only_deleted == ["session.deleted", "session.deleted"]


def test_failing_subscriber_does_not_stop_others(caplog: pytest.LogCaptureFixture) -> None:
    bus = Bus()
    got: list[AnyEvent] = []

    def broken(event: AnyEvent) -> None:
        raise RuntimeError("ui gone")

    bus.subscribe(broken)
    bus.subscribe(got.append)
    with caplog.at_level(logging.ERROR):
        bus.publish(SessionCompacted(session_id="ses_1"))
    assert len(got) == 1
    assert "subscriber failed" in caplog.text
