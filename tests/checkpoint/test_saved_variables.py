"""Kernel variables saved before the agent's code runs and put back by a revert: copies only
for what the code may change in place, every name that could not be saved named with why."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from jupyter_agent.checkpoint.names import touched_names
from jupyter_agent.checkpoint.variables import VariableStore


def _run(store: VariableStore, ns: dict[str, Any], code: str, prompt: str = "p1") -> list[Any]:
    saves = store.save(ns, touched_names(code), prompt)
    exec(code, ns)
    return saves


def test_dataframe_rows_dropped_in_place_and_rebound_come_back() -> None:
    sales = pd.DataFrame({"region": ["n", "s", None], "amount": [1.0, 2.0, 3.0]})
    ns: dict[str, Any] = {"sales": sales, "pd": pd}
    store = VariableStore()
    saves = _run(
        store, ns, "sales.dropna(inplace=True)\nsales = sales[sales.amount > 1]\nreport = len(sales)"
    )
    assert {s.name: s.how for s in saves} == {"sales": "copied", "report": "absent"}
    assert ns["sales"].shape == (1, 2)
    restored, problems, before = store.restore(ns, saves)
    assert problems == [] and sorted(restored) == ["report", "sales"]
    assert ns["sales"].shape == (3, 2) and "report" not in ns
    assert {b.name: b.how for b in before} == {"sales": "kept", "report": "kept"}
    store.restore(ns, before)  # what an unrevert does
    assert ns["sales"].shape == (1, 2) and ns["report"] == 1


def test_arrays_lists_and_a_rebinding_without_a_copy() -> None:
    ns: dict[str, Any] = {"arr": np.arange(5), "rows": [1, 2], "frame": pd.DataFrame({"a": [1]})}
    store = VariableStore()
    saves = _run(store, ns, "arr[0] = 99\nrows.append(3)\nframe = None")
    hows = {s.name: s.how for s in saves}
    assert hows == {"arr": "copied", "rows": "copied", "frame": "kept"}  # rebinding: the object is enough
    store.restore(ns, saves)
    assert ns["arr"][0] == 0 and ns["rows"] == [1, 2] and list(ns["frame"].a) == [1]


def test_what_cannot_be_saved_is_named_with_the_reason(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    fh = (tmp_path / "log.txt").open("w")
    ns: dict[str, Any] = {"conn": conn, "gen": (i for i in range(3)), "fh": fh, "big": list(range(10_000))}
    store = VariableStore(max_bytes=1000)
    saves = store.save(
        ns, touched_names("conn.execute('select 1')\ngen.send(None)\nfh.write('x')\nbig.sort()"), "p1"
    )
    why = {s.name: s.why for s in saves if s.how == "unsaved"}
    assert set(why) == {"conn", "gen", "fh", "big"}
    assert "pickle" in (why["conn"] or "") and "generator" in (why["gen"] or "")
    assert "open file" in (why["fh"] or "") and "checkpoint.max_bytes" in (why["big"] or "")
    _, problems, _ = store.restore(ns, saves)
    assert len(problems) == 4 and any(p.startswith("conn: ") for p in problems)
    fh.close()
    conn.close()


def test_once_per_prompt_and_released_copies_are_said() -> None:
    ns: dict[str, Any] = {"rows": [1]}
    store = VariableStore(max_bytes=10_000)
    first = _run(store, ns, "rows.append(2)", "p1")
    again = _run(store, ns, "rows.append(3)", "p1")
    assert first[0].how == "copied" and again[0].how == "earlier"
    _, problems, _ = store.restore(ns, again)
    assert "saved only at the start of its prompt" in problems[0]
    store.restore(ns, first)
    assert ns["rows"] == [1]
    for prompt in ("p2", "p3", "p4", "p5", "p6"):  # past four budgets: the oldest prompt's copy goes
        ns[prompt] = bytearray(9_000)
        _run(store, ns, f"{prompt}.append(0)", prompt)
    _, problems, _ = store.restore(ns, first)
    assert problems and "released to free memory" in problems[0]
    _, problems, _ = VariableStore().restore(ns, first)  # another kernel than the one that saved
    assert "restarted" in problems[0]
