"""A writer process for the crash and concurrency tests: streams parts into a store."""

from __future__ import annotations

import sys
from pathlib import Path

from jupyter_agent.core import ids
from jupyter_agent.core.messages import Session, TextPart, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore


def main() -> None:
    db, count, streaming = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "stream"
    store = SqliteStore(db)
    session = store.create_session(Session(id=ids.ascending("ses")))
    message = store.update_message(UserMessage(id=ids.ascending("msg"), session_id=session.id))
    for n in range(count):
        part = TextPart(id=ids.ascending("prt"), session_id=session.id, message_id=message.id)
        if streaming:
            for i in range(20):
                part = part.model_copy(update={"text": part.text + f"{n}-{i} "})
                store.update_part(part, delta="x", final=False)
        part = part.model_copy(update={"text": f"done {n}"})
        store.update_part(part, final=True)
        print(part.id, flush=True)
    store.close()


if __name__ == "__main__":
    main()
