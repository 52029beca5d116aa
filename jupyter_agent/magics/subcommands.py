"""``%agent sessions | new | switch | rename | config | stop | complete`` and ``%compact``."""

from __future__ import annotations

import datetime as dt
import html
from pathlib import Path

from IPython.display import display

from jupyter_agent.agent.revert import RevertError
from jupyter_agent.agent.setup import key_status
from jupyter_agent.config_origins import plain_table
from jupyter_agent.context.overflow import gauge
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.kernel.agent import KernelAgent, run_blocking
from jupyter_agent.kernel.event_loop import running_loop
from jupyter_agent.kernel.inline_completer import completer
from jupyter_agent.magics.parser import SubCommand
from jupyter_agent.mcp.listing import run
from jupyter_agent.tools.notebook_path import frontend_attached

TITLE_GRACE_S = 5.0
"""How long ``%agent sessions`` waits for a title a blocking run left on its way."""


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def sessions_table(agent: KernelAgent) -> dict[str, str]:
    """The notebook's sessions as HTML and as aligned plain text (terminal IPython, VS Code)."""
    costs = agent.runtime.session_costs()
    rows = [
        (
            "▶" if s.id == agent.session_id else "",
            s.id,
            s.title,
            _when(s.time.updated),
            costs.get(s.id, CostTotal()).text(),
        )
        for s in sorted(agent.runtime.list_sessions(), key=lambda s: -s.time.updated)
    ]
    if not rows:
        return {
            "text/html": "<p>No sessions yet for this notebook. Start one with <code>%agent …</code>.</p>",
            "text/plain": "No sessions yet for this notebook. Start one with %agent …",
        }
    head = ("", "id", "title", "updated", "cost")
    cells = "".join(
        f"<tr><td>{mark}</td><td><code>{html.escape(sid)}</code></td><td>{html.escape(title)}</td>"
        f"<td>{when}</td><td>{cost}</td></tr>"
        for mark, sid, title, when, cost in rows
    )
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]
    plain = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in (head, *rows)]
    return {
        "text/html": f"<table><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr>{cells}</table>",
        "text/plain": "\n".join(plain),
    }


def run_subcommand(agent: KernelAgent, cmd: SubCommand) -> None:
    rt = agent.refresh()  # what `%agent mcp` / `config` show is the configuration as it is now
    args = list(cmd.args)
    if cmd.name == "sessions":
        # a blocking run's title may still be on its way (never waited for by the run): the
        # listing gives it a moment, so a notebook run lists the sessions by their titles
        run_blocking(rt.settle_titles(TITLE_GRACE_S))
        display(sessions_table(agent), raw=True)
    elif cmd.name == "new":
        agent.session_id = rt.new_session().id
        print(f"New session {agent.session_id}")
    elif cmd.name == "switch":
        if not args:
            print("Usage: %agent switch SESSION_ID  (see %agent sessions)")
            return
        session = rt.get_session(args[0])
        agent.session_id = session.id
        print(f"Switched to {session.id}: {session.title}")
    elif cmd.name == "rename":
        if not args:
            print("Usage: %agent rename NEW TITLE")
            return
        sid = agent.current_session()
        rt.rename_session(sid, " ".join(args))
        print(f"Renamed {sid}: {' '.join(args)}")
    elif cmd.name == "delete":
        if not args:
            print("Usage: %agent delete SESSION_ID  (see %agent sessions)")
            return
        session = rt.get_session(args[0])
        if rt.busy(session.id):
            print("The agent is working in that session; stop it first.")
            return
        rt.delete_session(session.id)
        if agent.session_id == session.id:
            agent.session_id = None
        print(f"Deleted {session.id} ({session.title}) with its messages and sub-agent sessions.")
    elif cmd.name == "config":
        display(config_table(agent, args[0] if args else None), raw=True)
    elif cmd.name == "stop":
        count = rt.stop(agent.session_id)
        print("Stopped." if count else "Nothing is running.")
    elif cmd.name in ("fork", "revert", "unrevert", "export"):
        lifecycle(agent, cmd.name, args)
    elif cmd.name == "mcp":
        print(run(rt, args))
    elif cmd.name in ("verify", "hidden"):
        # nbclient and the report load with the first verification
        from jupyter_agent.magics.verify import hidden_command, verify_command

        verify_command(agent, args) if cmd.name == "verify" else hidden_command(agent)
    elif cmd.name == "complete":
        print(complete_switch(agent, args[0] if args else None))
    else:
        print(f"%agent {cmd.name} is not available in this version of jupyter-agent.")


def config_table(agent: KernelAgent, key: str | None = None) -> dict[str, str]:
    """``%agent config [KEY]``: each effective setting, its value and where it came from (as
    ``git config --show-origin``), then whether the model's key is set and from where."""
    runtime = agent.refresh(force=True)
    config = runtime.config
    rows = config.show_origin()
    if key:
        rows = [r for r in rows if r.key == key or r.key.startswith(f"{key}.")]
        if not rows:
            text = f"No setting {key!r}; %agent config lists them all."
            return {"text/plain": text, "text/html": f"<p>{html.escape(text)}</p>"}
    try:
        model: str | None = runtime.model_name()
    except JupyterAgentError:
        model = None
    notes = [f"API key: {key_status(config, model)}"]
    if model is None:
        notes.append(
            "No model yet: use the Agent panel's setup, run `jupyter-agent setup` in a terminal, "
            'or put {"model": "…"} in jupyter-agent.json.'
        )
    notes.append("Read from: " + ", ".join(config.sources))
    notes.extend(  # a project file not trusted yet sets nothing: its keys are not in the table
        f"Not applied (not trusted yet): {p.path}; your next prompt asks, "
        f"or run `jupyter-agent trust {p.path}`."
        for p in config.untrusted
    )
    cells = "".join(
        f"<tr><td><code>{html.escape(r.key)}</code></td><td><code>{html.escape(r.value)}</code></td>"
        f"<td>{html.escape(r.origin)}{' (locked)' if r.locked else ''}</td></tr>"
        for r in rows
    )
    table = f"<table><tr><th>setting</th><th>value</th><th>from</th></tr>{cells}</table>"
    return {
        "text/plain": "\n".join([plain_table(rows), "", *notes]),
        "text/html": table + "".join(f"<p>{html.escape(n)}</p>" for n in notes),
    }


def complete_switch(agent: KernelAgent, wanted: str | None) -> str:
    """``%agent complete [on|off]``: the inline completion state, or turn it on or off."""
    found = completer(agent)
    if wanted is not None:
        return found.set_enabled(wanted == "on")
    state = found.state()
    if not state.enabled:
        return f"Inline completion is off: {state.reason}."
    line = f"Inline completion is on (debounce {state.debounce_ms} ms); `%agent complete off` turns it off."
    return line + (f"\nThe latest suggestion failed: {found.last_error}" if found.last_error else "")


def lifecycle(agent: KernelAgent, name: str, args: list[str]) -> None:
    """fork / revert / unrevert / export of the current session."""
    rt = agent.runtime
    sid = agent.current_session()
    try:
        if name == "fork":
            session = rt.fork(sid, args[0] if args else None)
            agent.session_id = session.id
            print(f"Forked into {session.id}: {session.title} (now current)")
        elif name in ("revert", "unrevert"):
            revert_in_cell(agent, sid, name, args)
        else:
            export_into_notebook(agent, sid, args)
    except RevertError as exc:
        print(str(exc))


def revert_in_cell(agent: KernelAgent, sid: str, name: str, args: list[str]) -> None:
    """``%agent revert [MSG]`` / ``unrevert``: files, variables and messages now; the open
    notebook's cells through the side panel, whose answer comes once this cell has ended (the
    output is updated then)."""
    rt = agent.runtime
    bridge = agent.panels[-1].bridge if agent.panels else None
    reverting = (
        rt.revert(sid, args[0] if args else None, bridge) if name == "revert" else rt.unrevert(sid, bridge)
    )
    agent.session_changed(sid)
    loop = running_loop()
    if not (reverting.live and loop is not None):
        print(run_blocking(reverting.finish()).text())
        return
    handle = display({"text/plain": reverting.report.text()}, raw=True, display_id=True)

    async def finish() -> None:
        report = await reverting.finish()
        if handle is not None:
            handle.update({"text/plain": report.text()}, raw=True)

    task = loop.create_task(finish())
    agent.tasks.add(task)
    task.add_done_callback(agent.tasks.discard)


def export_into_notebook(agent: KernelAgent, sid: str, args: list[str]) -> None:
    """``%agent export [--format md|json|ipynb]``: md/json to a file, ipynb into this notebook."""
    fmt = args[0] if args else "ipynb"  # the parser validated it
    rt = agent.runtime
    rt.get_session(sid)
    if fmt in ("md", "json"):
        path = rt.working_dir / f"{sid}.{fmt}"
        lines = rt.export(sid, "md" if fmt == "md" else "json")
        with path.open("w", encoding="utf-8") as fh:
            for chunk in lines:
                fh.write(chunk)
        print(f"Wrote {path}")
        return
    notebook = agent.notebook_path()
    if notebook is None or not Path(notebook).exists():
        print("No notebook file to export into; use --format md or --format json.")
        return

    if frontend_attached(agent.shell.user_ns, __import__("os").environ):
        for cell in rt.export_cells(sid):  # the open notebook: show, don't overwrite
            source = "".join(cell["source"])
            display({"text/markdown": source, "text/plain": source}, raw=True)
        print("The notebook is open in a frontend: the transcript is shown above (save to keep it).")
        return
    # nbformat (and its JSON Schema) loads only for an export into a notebook
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    cells = rt.export_cells(sid)
    nb.cells.extend(cells)
    nbformat.write(nb, notebook)
    print(f"Added {len(cells)} markdown cells to {notebook}")


def compact_now(agent: KernelAgent, session_id: str | None) -> None:
    """Manual compaction with the gauge before and after (read from the window since the last
    summary: a long session is not read whole twice)."""
    rt = agent.refresh()
    sid = agent.current_session(session_id=session_id)
    window = rt.recorder(sid).window()
    if not window:
        print("Nothing to compact yet: this session has no messages.")
        return
    if rt.busy(sid):
        print("The agent is still working in this session; stop it or wait, then %compact.")
        return
    model = rt.session_model(sid) or rt.resolve_model()  # its gauge is the one the views show
    limit = model.context
    before = gauge(window, limit)
    print(f"Compacting {sid} (before: {before.text})…")
    # the widget stack (anywidget, ipywidgets) loads only when a view is shown
    from jupyter_agent.core import ids
    from jupyter_agent.ui.cell_output import CellRun, NoView
    from jupyter_agent.ui.widget import AgentWidget

    since = ids.ascending("msg")
    widget = NoView() if agent.headless() else AgentWidget(rt.bus, sid, since_id=since)
    # no prompt to echo: the transcript shows "history summarised here" and the summary
    run = CellRun(widget, session_id=sid, prompt="", since=since, model=model.name, window=limit)
    try:
        run_blocking(rt.compact(sid, model))
    finally:
        window = rt.recorder(sid).window()
        run.finish("done", lambda: window)  # a static summary stays in the cell
    error = getattr(window[-1].info, "error", None) if window else None
    if error is not None:
        print(f"Compaction failed: {error.message}")
        return
    print(f"Compacted: {before.text} → {gauge(window, limit).text}")
