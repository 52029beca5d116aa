"""The live names an inline completion is told about: the ones the cell uses first, data
described by its columns and dtypes, nothing secret, nothing slow or broken."""

from __future__ import annotations

import numpy as np
import pandas as pd

from jupyter_agent.kernel.live_names import MAX_NAMES, describe, summarize, used_names


def test_the_name_at_the_cursor_comes_first_with_its_columns_and_dtypes() -> None:
    sales = pd.DataFrame({"month": ["jan", "feb"], "region": ["n", "s"], "revenue": [1.5, 2.0]})
    ns = {"sales": sales, "other": pd.DataFrame({"a": [1]}), "n": 3, "pd": pd}
    lines = summarize('total = other.a.sum()\nsales.groupby("', "", ns)
    assert lines[0].startswith("sales: DataFrame 2 rows × 3 columns: month (")
    assert "region (" in lines[0] and "revenue (float64)" in lines[0]
    assert lines[1].startswith("other: DataFrame") and lines[2] == "n: int = 3"
    assert lines[-1] == "pd: module pandas"


def test_what_the_cell_could_use_follows_data_first() -> None:
    def helper(frame: pd.DataFrame, *, top: int = 5) -> pd.Series:
        return frame.sum()

    helper.__module__ = "__main__"
    ns = {
        "np": np,
        "_hidden": 1,
        "In": [],
        "count": 7,
        "helper": helper,
        "arr": np.zeros((3, 4)),
        "s": pd.Series([1.0], name="revenue"),
    }
    lines = summarize("x = ", "", ns, hidden={"count"})
    assert lines == [
        "s: Series 'revenue' (float64), 1 rows",
        "arr: ndarray shape (3, 4) float64",
        "helper: function helper(frame: 'pd.DataFrame', *, top: 'int' = 5) -> 'pd.Series'",
        "np: module numpy",
    ]
    assert not any(line.startswith(("_hidden", "In", "count")) for line in lines)


def test_values_of_secret_looking_names_are_not_shown() -> None:
    assert describe("OPENAI_API_KEY", "sk-abcdefgh12345678") == "OPENAI_API_KEY: str (value hidden)"
    assert describe("db_password", "hunter22") == "db_password: str (value hidden)"
    assert describe("key_file", "/tmp/k") == "key_file: str = '/tmp/k'"


def test_a_broken_object_is_left_out_and_unknown_objects_show_only_their_type() -> None:
    class Broken(pd.DataFrame):
        @property
        def columns(self):  # type: ignore[override]
            raise RuntimeError("lazy frame exploded")

    class Model:
        def __repr__(self) -> str:
            raise AssertionError("a summary never calls repr on an unknown object")

    Broken.__module__ = "pandas.core.frame"
    Model.__module__ = "sklearn.linear_model._base"
    lines = summarize("m", "", {"bad": Broken({"a": [1]}), "m": Model()})
    assert lines == ["m: Model (sklearn.linear_model._base)"]


def test_long_values_and_many_names_are_capped() -> None:
    ns = {f"v{i}": i for i in range(500)}
    ns["text"] = "x" * 10_000
    ns["big"] = {f"k{i}": i for i in range(100)}
    lines = summarize("text + big", "", ns)
    assert len(lines) == MAX_NAMES
    assert lines[0] == "big: dict, 100 keys: 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', …"
    assert lines[1].startswith("text: str = 'xxx") and lines[1].endswith("…") and len(lines[1]) < 100


def test_used_names_are_the_identifiers_nearest_the_cursor_first() -> None:
    assert used_names("import pandas as pd\nfor row in df.itertuples(): total += row.") == [
        "row", "total", "itertuples", "df", "pd", "pandas",
    ]  # fmt: skip


def test_a_huge_namespace_is_scanned_only_so_far_and_unknown_objects_are_not_probed() -> None:
    class Proxy:
        """A lazy remote object: any attribute it does not have is a network call."""

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"probed {name}")

    ns: dict[str, object] = {"old_frame": pd.DataFrame({"a": [1]})}
    ns.update({f"v{i}": i for i in range(20_000)})
    ns["remote"] = Proxy()
    lines = summarize("x = ", "", ns)
    assert lines[0] == "remote: Proxy (test_live_names)"
    assert not any(line.startswith("old_frame") for line in lines)  # 20,000 names back: not looked at
    assert summarize("old_frame.", "", ns)[0].startswith("old_frame: DataFrame")  # named: always
