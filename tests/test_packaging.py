"""What a package index gets: a wheel that ships the prebuilt side panel (so `pip install
jupyter-agent-kernel` needs no node), needs no JupyterLab for a kernel, and carries the metadata an
index and JupyterLab's extension manager read (classifiers, license file, a description
whose links work on a package page), as `twine check` judges them.

The sdist and wheel are built once for the module, from the panel scripts/install.sh built
already (hatch-jupyter-builder's skip-if-exists): no npm runs here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest
from dist_closure import closure, dist_name

# the module builds the sdist and the wheel (a minute): not the fast tier
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
NAME = "jupyter-agent-kernel"
"""The distribution's name on the package index (`jupyter-agent` there is another project)."""
STEM = "jupyter_agent_kernel-0.1.0"
SHARE = f"{STEM}.data/data/share/jupyter/labextensions/jupyter-agent"
SERVER_SIDE = {"jupyterlab", "jupyter-server", "notebook", "jupyterlab-server", "jupyter-lsp", "nbclassic"}
CLUTTER = {".hypothesis", ".import_linter_cache", ".mypy_cache", ".pytest_cache", ".venv", "node_modules"}
PREBUILT = "Framework :: Jupyter :: JupyterLab :: Extensions :: Prebuilt"
BUILD = (
    "import sys; from hatchling.build import build_sdist, build_wheel; "
    "build_sdist(sys.argv[1]); build_wheel(sys.argv[1])"
)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, by hatchling as `python -m build` would call it (no isolation:
    the build tools come from the dev extras)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-c", BUILD, str(out)], cwd=ROOT, check=True, capture_output=True)
    return out


def _wheel(dist: Path) -> Path:
    return next(dist.glob("jupyter_agent_kernel-*.whl"))


def _sdist(dist: Path) -> Path:
    return next(dist.glob("jupyter_agent_kernel-*.tar.gz"))


def _metadata(dist: Path) -> Message:
    with zipfile.ZipFile(_wheel(dist)) as wheel:
        return Parser().parsestr(wheel.read(f"{STEM}.dist-info/METADATA").decode())


@pytest.mark.timeout(600)
def test_wheel_contains_the_labextension(dist: Path) -> None:
    names = set(zipfile.ZipFile(_wheel(dist)).namelist())
    assert f"{SHARE}/package.json" in names
    assert f"{SHARE}/install.json" in names
    assert any(n.startswith(f"{SHARE}/static/remoteEntry.") for n in names)
    meta = json.loads(zipfile.ZipFile(_wheel(dist)).read(f"{SHARE}/package.json"))
    assert meta["name"] == "jupyter-agent" and meta["jupyterlab"]["_build"]["load"].startswith("static/")


def test_the_wheel_carries_the_free_name_and_keeps_the_import_and_the_command(dist: Path) -> None:
    """`pip install jupyter-agent` installs someone else's project: ours is `jupyter-agent-kernel`,
    still imported as `jupyter_agent` and run as `jupyter-agent` (and uninstalled by that name,
    as JupyterLab's extension manager says)."""
    assert _metadata(dist)["Name"] == NAME
    names = zipfile.ZipFile(_wheel(dist)).namelist()
    assert "jupyter_agent/__init__.py" in names and not [
        n for n in names if n.startswith("jupyter_agent_kernel/")
    ]
    entry_points = zipfile.ZipFile(_wheel(dist)).read(f"{STEM}.dist-info/entry_points.txt").decode()
    assert "jupyter-agent = jupyter_agent.cli:entry" in entry_points
    install = json.loads(zipfile.ZipFile(_wheel(dist)).read(f"{SHARE}/install.json"))
    assert install["packageName"] == NAME and install["uninstallInstructions"].endswith(NAME)
    assert _sdist(dist).name == f"{STEM}.tar.gz"


def test_twine_accepts_the_sdist_and_the_wheel(dist: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(_sdist(dist)), str(_wheel(dist))],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_the_license_file_is_in_the_wheel_and_the_sdist(dist: Path) -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    with zipfile.ZipFile(_wheel(dist)) as wheel:
        assert wheel.read(f"{STEM}.dist-info/licenses/LICENSE").decode() == text
    with tarfile.open(_sdist(dist)) as sdist:
        member = sdist.extractfile(f"{STEM}/LICENSE")
        assert member is not None and member.read().decode() == text
        parts = {part for name in sdist.getnames() for part in name.split("/")}
    assert not parts & CLUTTER  # what tests and tools leave in a clone stays out of the sdist
    meta = _metadata(dist)
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"


def test_classifiers_list_the_prebuilt_extension_and_the_tested_pythons(dist: Path) -> None:
    classifiers = _metadata(dist).get_all("Classifier") or []
    assert PREBUILT in classifiers  # how JupyterLab's extension manager finds it
    versions = {c.rsplit(" :: ", 1)[1] for c in classifiers if re.fullmatch(r".*Python :: 3\.\d+", c)}
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in versions  # this run's
    # the README says which versions were installed from the wheel and run (check-wheel.sh)
    tested = re.search(r"Tested with Python ([\d., and]+)", (ROOT / "README.md").read_text())
    assert tested is not None and set(re.findall(r"3\.\d+", tested.group(1))) == versions


def test_the_description_has_no_links_a_package_page_would_break(dist: Path) -> None:
    meta = _metadata(dist)
    assert meta["Description-Content-Type"] == "text/markdown"
    body = str(meta.get_payload())
    assert body.strip() == (ROOT / "docs" / "package-description.md").read_text().strip()
    targets = re.findall(r"\]\(([^)\s]+)", body) + re.findall(
        r"<(?:img|a)\s[^>]*(?:src|href)=\"([^\"]+)", body
    )
    assert targets, "expected at least one link"
    relative = [t for t in targets if not re.match(r"https://", t)]
    assert relative == []  # docs/…, images or anchors resolve against the index, not the repo
    readme = (ROOT / "README.md").read_text()
    for shape in (f"pip install {NAME} ", f'pip install "{NAME}[lab]"'):
        assert shape in body and shape in readme  # the two install shapes, said alike


def test_the_kernel_package_needs_no_jupyter_server(dist: Path) -> None:
    requires = _metadata(dist).get_all("Requires-Dist") or []
    base = {dist_name(r) for r in requires if "extra ==" not in r}
    lab = {dist_name(r) for r in requires if re.search(r"extra == ['\"]lab['\"]", r)}
    assert "jupyterlab" in lab and not base & SERVER_SIDE
    # nor does anything they require, as installed here
    assert not closure(sorted(base)) & SERVER_SIDE


def test_the_test_extra_holds_no_proxy_server(dist: Path) -> None:
    """A LiteLLM proxy's server packages are the `proxy` extra, not in every test install."""
    requires = _metadata(dist).get_all("Requires-Dist") or []
    test = {dist_name(r) for r in requires if re.search(r"extra == ['\"]test['\"]", r)}
    proxy = {dist_name(r) for r in requires if re.search(r"extra == ['\"]proxy['\"]", r)}
    assert {"fastapi", "apscheduler", "rq", "fastapi-sso"} <= proxy
    assert "pytest" in test and not test & proxy
