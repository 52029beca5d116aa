"""``%agent sessions | new | switch | rename | config | stop`` and ``%compact``."""

from __future__ import annotations

import datetime as dt
import html
import json

from IPython.display import HTML, display

from jupyter_agent.magics.kernel import KernelAgent, run_blocking
from jupyter_agent.magics.parser import SubCommand


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def sessions_table(agent: KernelAgent) -> str:
    rows = []
    for s in sorted(agent.runtime.sessions(), key=lambda s: -s.time.updated):
        mark = "▶" if s.id == agent.session_id else ""
        rows.append(
            f"<tr><td>{mark}</td><td><code>{html.escape(s.id)}</code></td>"
            f"<td>{html.escape(s.title)}</td><td>{_when(s.time.updated)}</td></tr>"
        )
    if not rows:
        return "<p>No sessions yet for this notebook. Start one with <code>%agent …</code>.</p>"
    head = "<tr><th></th><th>id</th><th>title</th><th>updated</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def run_subcommand(agent: KernelAgent, cmd: SubCommand) -> None:
    rt = agent.runtime
    args = list(cmd.args)
    if cmd.name == "sessions":
        display(HTML(sessions_table(agent)))
    elif cmd.name == "new":
        agent.session_id = rt.new_session().id
        print(f"New session {agent.session_id}")
    elif cmd.name == "switch":
        if not args:
            print("Usage: %agent switch SESSION_ID  (see %agent sessions)")
            return
        session = rt.store.get_session(args[0])
        agent.session_id = session.id
        print(f"Switched to {session.id}: {session.title}")
    elif cmd.name == "rename":
        if not args:
            print("Usage: %agent rename NEW TITLE")
            return
        sid = agent.current_session()
        session = rt.store.get_session(sid)
        rt.store.update_session(session.model_copy(update={"title": " ".join(args)}))
        print(f"Renamed {sid}: {' '.join(args)}")
    elif cmd.name == "config":
        agent.reload_config()
        print(json.dumps(agent.runtime.config.redacted(), indent=2))
    elif cmd.name == "stop":
        count = rt.stop(agent.session_id)
        print("Stopped." if count else "Nothing is running.")
    else:
        print(f"%agent {cmd.name} is not available in this version of jupyter-agent.")


def compact_now(agent: KernelAgent, session_id: str | None) -> None:
    """Manual compaction with the gauge before and after."""
    from jupyter_agent.context.overflow import gauge

    rt = agent.runtime
    sid = agent.current_session(session_id=session_id)
    if not rt.store.messages(sid):
        print("Nothing to compact yet: this session has no messages.")
        return
    if rt.busy(sid):
        print("The agent is still working in this session; stop it or wait, then %compact.")
        return
    model = rt.model_for(None)
    limit = rt.settings(model).context_limit
    before = gauge(rt.store.messages(sid), limit)
    print(f"Compacting {sid} (before: {before.text})…")
    from jupyter_agent.core import ids
    from jupyter_agent.ui.widget import AgentWidget

    widget = AgentWidget(rt.bus, sid, since_id=ids.ascending("msg"))
    display(widget)
    try:
        run_blocking(rt.compact(sid, model))
    finally:
        widget.done()
    after = gauge(rt.store.messages(sid), limit)
    widget.set_gauge(after.tokens, after.percent)
    last = rt.store.messages(sid)[-1].info if rt.store.messages(sid) else None
    error = getattr(last, "error", None)
    if error is not None:
        print(f"Compaction failed: {error.message}")
        return
    print(f"Compacted: {before.text} → {after.text}")
