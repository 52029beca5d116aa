"""Which variables a piece of code may bind, delete or change in place (and nothing it only reads)."""

from __future__ import annotations

import pytest

from jupyter_agent.checkpoint.names import touched_names


@pytest.mark.parametrize(
    ("code", "bound", "mutated"),
    [
        ("sales = sales.dropna()", {"sales"}, {"sales"}),
        ("sales.drop(columns=['x'], inplace=True)", set(), {"sales"}),
        ("df['total'] = df.a + df.b", set(), {"df"}),
        ("df.loc[0, 'a'] = 1\ndel cache['k']", set(), {"df", "cache"}),
        ("model.weights = w", set(), {"model"}),
        ("rows += [1]", {"rows"}, {"rows"}),
        ("x, (y, *z) = 1, (2, 3)\ndel w", {"x", "y", "z", "w"}, set()),
        ("for i in range(3):\n    total = i", {"i", "total"}, set()),
        ("with open('f') as fh:\n    text = fh.read()", {"fh", "text"}, {"fh"}),
        ("out = []\nout.append(1)", {"out"}, {"out"}),
        ("import numpy as np, os.path\nfrom math import pi as PI", {"np", "os", "PI"}, set()),
        ("def f():\n    global counter\n    counter = 1\nclass C: pass", {"f", "C", "counter"}, set()),
        ("squares = [n * n for n in range(3)]", {"squares"}, set()),
        ("if (m := 3) > 2: pass\nys = [(k := v) for v in range(2)]", {"m", "ys", "k"}, set()),
        ("print(len(sales), sales.shape)\nsales.describe", set(), set()),
        ("try:\n    1/0\nexcept ZeroDivisionError as err:\n    pass", {"err"}, set()),
    ],
)
def test_touched(code: str, bound: set[str], mutated: set[str]) -> None:
    touched = touched_names(code)
    assert set(touched.mutated) == mutated
    assert set(touched.bound) == bound


def test_a_read_only_call_copies_nothing_but_a_method_call_does() -> None:
    assert touched_names("print(sales)\nn = len(sales)").mutated == frozenset()
    assert touched_names("sales.groupby('region').sum()").mutated == {"sales"}


def test_star_import_is_flagged_and_bad_syntax_raises() -> None:
    assert touched_names("from os.path import *").star
    with pytest.raises(SyntaxError):
        touched_names("x = = 1")
