"""``jupyter-agent kernel install --contained``: the "Python 3 (contained)" kernelspec.

Written with jupyter_client's own installer, so ``--user``, ``--sys-prefix`` and
``--prefix`` mean what they mean for ``python -m ipykernel install``; the kernel is this
interpreter, started through ``python -m jupyter_agent.contained``.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

DEFAULT_NAME = "python3-contained"
DISPLAY_NAME = "Python 3 (contained)"


def spec(python: str = sys.executable) -> dict[str, object]:
    return {
        "argv": [python, "-m", "jupyter_agent.contained", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": True, "jupyter_agent": {"contained": True}},
    }


def install(name: str = DEFAULT_NAME, *, user: bool = False, prefix: str | None = None) -> str:
    """Install the kernelspec; where it went."""
    # jupyter_client loads only for this command
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / name
        source.mkdir()
        (source / "kernel.json").write_text(json.dumps(spec(), indent=1), encoding="utf-8")
        _logos(source)
        return str(KernelSpecManager().install_kernel_spec(str(source), name, user=user, prefix=prefix))


def _logos(target: Path) -> None:
    """ipykernel's logos, so the launcher shows the Python icon."""
    try:
        # ipykernel is where the kernel's logos ship
        from ipykernel.kernelspec import RESOURCES
    except ImportError:
        return
    for logo in Path(RESOURCES).glob("logo-*"):
        shutil.copy(logo, target / logo.name)
