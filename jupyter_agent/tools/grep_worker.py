r"""The grep tool's Python fallback, run as a child process by ``search_proc``.

``python -m jupyter_agent.tools.grep_worker BASE PATTERN [INCLUDE]`` prints
``path\0line:text`` per hit (the ``rg --null`` format); exit 1 when nothing matched.
"""

from __future__ import annotations

import sys
from pathlib import Path

from jupyter_agent.tools.grep import COLLECT, python_grep


def main(argv: list[str]) -> int:
    base, pattern = Path(argv[0]), argv[1]
    include = argv[2] if len(argv) > 2 and argv[2] else None
    out = sys.stdout.buffer
    found = 0
    for file, number, text in python_grep(base, pattern, include):
        out.write(f"{file}\0{number}:{text}\n".encode("utf-8", errors="replace"))
        found += 1
        if found >= COLLECT:
            break
    out.flush()
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
