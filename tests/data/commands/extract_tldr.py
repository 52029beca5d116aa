"""Rebuild ``tldr.txt`` from a checkout of the tldr pages (https://github.com/tldr-pages/tldr).

    python tests/data/commands/extract_tldr.py PATH/TO/tldr > tests/data/commands/tldr.txt

Every example of the pages of everyday programs (``EVERYDAY``) and a fixed sample of the rest
(a hash of the line picks about one in ``SAMPLE``), from ``pages/common`` and ``pages/linux``.
Placeholders become plain words: ``{{path/to/file}}`` → ``path/to/file``,
``{{[-m|--message]}}`` → ``-m`` or ``--message`` (by the line's hash, so both forms occur),
``{{file.tar[.gz|.xz]}}`` → ``file.tar.gz``, ``{{a b ...}}`` → ``a b``. Not run by the tests:
the output is committed, so a change in the checker's decisions shows in review.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

EVERYDAY = set(
    [
        "sed",
        "awk",
        "gawk",
        "grep",
        "egrep",
        "rg",
        "find",
        "fd",
        "xargs",
        "git",
        "git-add",
        "git-commit",
        "git-push",
        "git-pull",
        "git-log",
        "git-diff",
        "git-status",
        "git-checkout",
        "git-switch",
        "git-branch",
        "git-merge",
        "git-rebase",
        "git-reset",
        "git-stash",
        "git-clone",
        "git-tag",
        "git-remote",
        "git-fetch",
        "git-restore",
        "git-rm",
        "git-mv",
        "git-show",
        "git-config",
        "git-submodule",
        "git-worktree",
        "git-clean",
        "git-cherry-pick",
        "git-blame",
        "git-grep",
        "python",
        "python3",
        "pip",
        "pip3",
        "pipx",
        "conda",
        "mamba",
        "uv",
        "poetry",
        "pytest",
        "jupyter",
        "ipython",
        "papermill",
        "nbconvert",
        "jupyter-nbconvert",
        "black",
        "ruff",
        "mypy",
        "flake8",
        "isort",
        "tox",
        "nox",
        "virtualenv",
        "docker",
        "docker-compose",
        "curl",
        "wget",
        "tar",
        "zip",
        "unzip",
        "gzip",
        "gunzip",
        "bzip2",
        "xz",
        "ls",
        "cp",
        "mv",
        "rm",
        "mkdir",
        "rmdir",
        "touch",
        "chmod",
        "chown",
        "ln",
        "cat",
        "head",
        "tail",
        "less",
        "sort",
        "uniq",
        "cut",
        "tr",
        "wc",
        "diff",
        "patch",
        "tee",
        "du",
        "df",
        "ps",
        "kill",
        "pkill",
        "top",
        "htop",
        "env",
        "export",
        "echo",
        "printf",
        "jq",
        "yq",
        "sqlite3",
        "psql",
        "mysql",
        "ruby",
        "perl",
        "node",
        "npm",
        "npx",
        "yarn",
        "pnpm",
        "make",
        "cmake",
        "gcc",
        "ssh",
        "scp",
        "rsync",
        "sudo",
        "which",
        "whereis",
        "file",
        "stat",
        "date",
        "sleep",
        "watch",
        "time",
        "timeout",
        "nohup",
        "screen",
        "tmux",
        "bash",
        "sh",
        "zsh",
        "source",
        "realpath",
        "basename",
        "dirname",
        "readlink",
        "column",
        "paste",
        "join",
        "comm",
        "split",
        "csvcut",
        "csvlook",
        "head",
        "nl",
        "od",
        "xxd",
        "base64",
        "md5sum",
        "sha256sum",
        "openssl",
        "gpg",
        "crontab",
        "systemctl",
        "journalctl",
        "apt",
        "apt-get",
        "dpkg",
        "brew",
        "R",
        "Rscript",
        "julia",
        "java",
        "javac",
        "go",
        "cargo",
        "rustc",
        "parallel",
        "nproc",
        "free",
        "uname",
        "hostname",
        "id",
        "whoami",
        "history",
        "alias",
        "cd",
        "pwd",
    ]
)
SAMPLE = 12
EXAMPLE = re.compile(r"^`(.*)`$")
PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
CHOICE = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")


def _hash(text: str) -> int:
    return int(hashlib.sha1(text.encode()).hexdigest(), 16)


def _fill(line: str) -> str:
    pick = _hash(line)

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        whole = re.fullmatch(r"\[(.*)\]", inner)
        if whole and "|" in whole.group(1):
            options = whole.group(1).split("|")
            return options[pick % len(options)]
        inner = CHOICE.sub(lambda m: m.group(1).split("|")[0], inner)
        return re.sub(r"\s*\.\.\.$", "", inner).strip() or inner

    return PLACEHOLDER.sub(one, line)


def examples(root: Path) -> list[str]:
    out: list[str] = []
    for folder in ("common", "linux"):
        for page in sorted((root / "pages" / folder).glob("*.md")):
            everyday = page.stem in EVERYDAY
            for raw in page.read_text(encoding="utf-8").splitlines():
                found = EXAMPLE.match(raw.strip())
                if not found:
                    continue
                line = found.group(1)
                if everyday or _hash(line) % SAMPLE == 0:
                    filled = _fill(line)
                    if filled not in out:
                        out.append(filled)
    return out


if __name__ == "__main__":
    sys.stdout.write("".join(f"{line}\n" for line in examples(Path(sys.argv[1]))))
