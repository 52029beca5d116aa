"""Which names code binds, reads, changes in place and deletes (``repro/names.py``)."""

from __future__ import annotations

import pytest

from jupyter_agent.repro.names import analyse, analyse_cell


def test_assignment_reads_before_it_binds() -> None:
    found = analyse("sales = sales.dropna()\ntotal = sum(sales)")
    assert found.binds == {"sales", "total"}
    assert found.reads == {"sales"}  # `sum` is a builtin; the second `sales` is bound by then


@pytest.mark.parametrize(
    ("code", "mutated"),
    [
        ("df.loc[0, 'x'] = 1", {"df"}),
        ("df['y'] = df['x'] * 2", {"df"}),
        ("obj.attr = 3", {"obj"}),
        ("xs.append(4)", {"xs"}),
        ("df.dropna(inplace=True)", {"df"}),
        ("df['a'].fillna(0, inplace=True)", {"df"}),
        ("xs += [1]", {"xs"}),
        ("del d['k']", {"d"}),
        ("setattr(obj, 'a', 1)", {"obj"}),
        ("df.dropna(inplace=False)", set()),
        ("print(df.head())", set()),
    ],
)
def test_changes_in_place(code: str, mutated: set[str]) -> None:
    assert analyse(code).mutates == mutated


def test_imports_defs_loops_and_handlers_bind() -> None:
    code = """
import numpy as np, os.path
from math import pi as PI
def clean(frame, limit=cutoff):
    return frame[frame.x > threshold]
class Model(Base):
    scale = factor
for i, (a, b) in enumerate(pairs):
    pass
with open(path) as fh:
    text = fh.read()
try:
    pass
except ValueError as err:
    pass
if (n := len(text)) > 3:
    pass
"""
    found = analyse(code)
    assert {"np", "os", "PI", "clean", "Model", "i", "a", "b", "fh", "text", "err", "n"} <= found.binds
    # defaults, bases and class bodies run now; function bodies read globals when called
    assert {"cutoff", "Base", "factor", "pairs", "path", "threshold"} <= found.reads
    assert not {"frame", "i", "fh", "np"} & found.reads


def test_comprehension_variables_stay_inside() -> None:
    found = analyse("evens = [x for x in numbers if x % 2 == 0]\nm = {k: v for k, v in pairs}")
    assert found.reads == {"numbers", "pairs"}
    assert found.binds == {"evens", "m"}


def test_a_function_that_assigns_a_global_binds_it() -> None:
    found = analyse("def setup():\n    global ready\n    ready = True\n")
    assert {"setup", "ready"} <= found.binds


def test_deletion_and_opaque_code() -> None:
    assert analyse("del x").deletes == {"x"}
    assert analyse("from pylab import *").opaque
    assert analyse("exec('y = 1')").opaque
    assert not analyse("y = 1").opaque


def test_ipython_syntax_is_transformed_first() -> None:
    found = analyse_cell("%matplotlib inline\nfiles = !ls\n%time total = sum(xs)\nx?")
    assert {"files", "total"} <= found.binds and "xs" in found.reads
    assert not found.opaque  # %matplotlib binds nothing; %time's code is read
    assert analyse_cell("%run helpers.py").opaque
    captured = analyse_cell("%%capture out\nprint(1)")
    assert "out" in captured.binds
    agent = analyse_cell("%agent clean @sales")
    assert not agent.binds and not agent.reads and not agent.opaque


def test_code_that_does_not_parse() -> None:
    assert not analyse("def (:").parsed
    assert not analyse("x = '\x00'").parsed or analyse("x = '\x00'").binds == {"x"}


def test_history_and_kernel_names_are_not_reads() -> None:
    found = analyse("print(_, __, _i3, _5, In, Out, get_ipython(), display)")
    assert found.reads == set()
