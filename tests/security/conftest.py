"""Fixtures for the hostile-model tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile import outside_folder


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the project and the temp folder, removed after the test."""
    with outside_folder() as folder:
        yield folder
