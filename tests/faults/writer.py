"""A writer process for the crash and concurrency tests: streams parts into a store.

Usage: ``writer.py DB COUNT stream|final SESSION_ID``. Prints each finished part id,
flushed, only after ``update_part(final=True)`` returned: the parent may rely on it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from jupyter_agent.core import ids
from jupyter_agent.core.messages import Session, TextPart, UserMessage
from jupyter_agent.storage.sqlite_store import SessionNotFound, SqliteStore


def main() -> None:
    db, count, mode, session_id = sys.argv[1:5]
    store = SqliteStore(Path(db))
    try:
        session = store.get_session(session_id)
    except SessionNotFound:
        session = store.create_session(Session(id=session_id))
    message = store.update_message(UserMessage(id=ids.ascending("msg"), session_id=session.id))
    for n in range(int(count)):
        part = TextPart(id=ids.ascending("prt"), session_id=session.id, message_id=message.id)
        if mode == "stream":
            for i in range(20):
                part = part.model_copy(update={"text": part.text + f"{n}-{i} "})
                store.update_part(part, delta=f"{n}-{i} ", final=False)
        store.update_part(part.model_copy(update={"text": f"done {n}"}), final=True)
        print(part.id, flush=True)
    store.close()


if __name__ == "__main__":
    main()
