"""``jupyter-agent kernel install --contained``: install the contained kernel's kernelspec."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from jupyter_agent.contained import kernelspec
from jupyter_agent.core.errors import EXIT_USAGE


def add_kernel_command(sub: Any) -> None:
    kernel = sub.add_parser("kernel", help="install the contained kernel")
    actions = kernel.add_subparsers(dest="kernel_action", required=True, metavar="ACTION")
    install = actions.add_parser(
        "install",
        help='install the "Python 3 (contained)" kernelspec',
        description=(
            "Install a kernelspec whose kernel runs inside the same sandbox as the agent's bash "
            "commands: the python tool, the cells the agent runs and your own cells all do "
            "(docs/security.md)."
        ),
    )
    install.add_argument(
        "--contained", action="store_true", help="the kernel runs in the sandbox (required for now)"
    )
    install.add_argument("--name", default=kernelspec.DEFAULT_NAME, help="the kernelspec's name")
    where = install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for your user only")
    where.add_argument("--sys-prefix", action="store_true", help="in this Python environment")
    where.add_argument("--prefix", help="under this prefix (PREFIX/share/jupyter/kernels)")


def run_kernel_command(args: argparse.Namespace) -> int:
    if not args.contained:
        print(
            "error: jupyter-agent kernel install needs --contained (an ordinary kernel is "
            "ipykernel's own: python -m ipykernel install)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    prefix = sys.prefix if args.sys_prefix else args.prefix
    try:
        where = kernelspec.install(args.name, user=args.user, prefix=prefix)
    except (OSError, ValueError) as exc:
        print(f"error: cannot install the kernelspec {args.name!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f'Installed "{kernelspec.DISPLAY_NAME}" ({args.name}) in {where}')
    return 0
