"""``jupyter-agent setup``: the side panel's setup from a terminal.

Asks for what the flags do not give (provider, model, a server's base URL, the key without
echo), makes a one-token test request and saves to the user's own config folder
(``agent/setup.py``): never the project, never a notebook. ``--key-stdin`` reads the key from
standard input (a script, a password manager's pipe).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from pathlib import Path
from typing import Any

SHOWN = 12
"""Models listed before the prompt (the rest: type a name; any litellm model string works)."""


def add_setup_command(sub: Any) -> None:
    setup = sub.add_parser(
        "setup",
        help="choose a model and save its key (in your config folder, never the project)",
        description="Choose a provider and a model, give its key, test the connection and save "
        "them in your user config folder (~/.config/jupyter-agent): the next prompt in any "
        "notebook uses them. Asks for whatever the options do not give.",
    )
    setup.add_argument("--provider", help="e.g. anthropic, openai, gemini, ollama_chat, openai-compatible")
    setup.add_argument("--model", help="a litellm model string, e.g. anthropic/claude-sonnet-4-5")
    setup.add_argument("--api-base", dest="api_base", help="an OpenAI-compatible server's base URL")
    setup.add_argument("--key-stdin", action="store_true", help="read the API key from standard input")
    setup.add_argument("--no-test", action="store_true", help="save without the test request")


def _ask(label: str, default: str = "") -> str:
    shown = f" [{default}]" if default else ""
    try:
        answer = input(f"{label}{shown}: ").strip()
    except EOFError:
        answer = ""
    return answer or default


def run_setup(args: argparse.Namespace) -> int:
    # the setup's pieces (litellm's lists, the config model) load for this command only
    from jupyter_agent.agent import setup
    from jupyter_agent.config import load_config
    from jupyter_agent.providers.litellm_client import LiteLLMClient

    config = load_config(Path.cwd())
    start = setup.current(config)
    asking = sys.stdin.isatty() and not args.key_stdin
    provider = args.provider or start.provider
    if asking and not args.provider:
        provider = _pick_provider(setup.providers(), start.provider)
    api_base = args.api_base or ""
    if provider == setup.COMPATIBLE and not api_base:
        api_base = _ask("Base URL of the server", start.api_base) if asking else start.api_base
    model = args.model or ""
    if not model and asking:
        listed = setup.models(provider)
        if listed:
            print(
                f"Some of {provider}'s models: "
                + ", ".join(listed[:SHOWN])
                + (" …" if len(listed) > SHOWN else "")
            )
        model = _ask("Model", start.model if start.provider == provider else "")
    choice = setup.Choice(provider, model, api_base)
    try:
        choice = choice.checked()
        key = _key(args, choice.key_name, asking)
        choice = setup.Choice(choice.provider, choice.model, choice.api_base, key)
        if not args.no_test:
            print(f"Testing {choice.model}…", file=sys.stderr)
            client = LiteLLMClient(idle_timeout=config.stream_idle_timeout)
            print(asyncio.run(setup.test_connection(client, choice, config)))
        print(setup.save(choice, config))
    except setup.SetupError as exc:  # one line; a bad choice is a usage error, a failed test a failure
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


def _pick_provider(names: list[str], default: str) -> str:
    print(
        "Providers: "
        + ", ".join(names[:SHOWN])
        + f", … (any of litellm's), or {names[-1]} for your own server"
    )
    return _ask("Provider", default)


def _key(args: argparse.Namespace, name: str | None, asking: bool) -> str:
    """The key from stdin, the terminal (not echoed), or nothing (keep the one set)."""
    if args.key_stdin:
        return sys.stdin.readline().strip()
    if not asking or name is None:
        return ""
    return getpass.getpass(f"API key ({name}; Enter keeps the one set): ").strip()
