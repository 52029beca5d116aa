"""The one place a runtime is wired: the magics, the side panel and the CLI all call ``build_runtime``.

Reading this function shows every dependency: which store, bus, model client, tools and
permissions the session service and the runner share.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from jupyter_agent.agent.checkpoints import Checkpoints
from jupyter_agent.agent.inline import InlineCompletions
from jupyter_agent.agent.permissions import PermissionManager
from jupyter_agent.agent.ports import CompletionClient, ModelClient
from jupyter_agent.agent.recovery import recover_abandoned
from jupyter_agent.agent.review import Reviews
from jupyter_agent.agent.runner import Runner
from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.agent.sessions import SessionLocks, SessionService
from jupyter_agent.agent.subtask import run_child
from jupyter_agent.agent.workspace import Workspace
from jupyter_agent.config import Config, option_secrets
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.redaction import register, register_secret
from jupyter_agent.mcp.manager import manager_of
from jupyter_agent.mcp.tools import sync_tools
from jupyter_agent.storage.audit_log import SYSLOG, AuditLog, Sink
from jupyter_agent.storage.spill import DIRNAME as OUTPUTS
from jupyter_agent.storage.spill import cleanup
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.notebook import live_notebook
from jupyter_agent.tools.protected import Guard
from jupyter_agent.tools.registry import ToolRegistry, default_registry
from jupyter_agent.tools.sandbox import SandboxPolicy
from jupyter_agent.tools.services import Services


def _register_secrets(config: Config) -> None:
    register([config.api_key_env], config.redact)  # hidden on every way out
    for value, where in option_secrets(config).items():
        register_secret(value, where)


def build_runtime(
    *,
    config: Config,
    store: SqliteStore,
    project_root: Path,
    working_dir: Path,
    notebook_path: str | None = None,
    interactive: bool = False,
    bus: Bus | None = None,
    tools: ToolRegistry | None = None,
    client: ModelClient | None = None,
    completions: CompletionClient | None = None,
    services: Services | None = None,
    generate_titles: bool = True,
) -> Runtime:
    """A runtime for one notebook/folder; ``tools`` defaults to the file/shell tools (plus
    ``task``), ``client`` to litellm's (tests may pass the in-process scripted model, which
    then also makes the inline completions; ``completions`` defaults to litellm's).
    Opening it also tidies the store (old saved outputs, parts a killed process left running)."""
    _register_secrets(config)
    if client is None:
        from jupyter_agent.providers.litellm_client import LiteLLMClient  # litellm is slow to import

        client = LiteLLMClient(idle_timeout=config.stream_idle_timeout)
    bus = bus or Bus()
    services = services or Services()
    permissions = PermissionManager(bus, config, kernel=services.kernel)
    snapshots = store.path.parent / "snapshots"
    checkpoints = Checkpoints(config.checkpoint, project_root, snapshots, shell=services.shell)
    workspace = Workspace(
        config=config,
        store=store,
        bus=bus,
        project_root=project_root,
        working_dir=working_dir,
        notebook_path=notebook_path,
        registry=tools or default_registry(project_root),
        client=client,
        permissions=permissions,
        services=services,
        checkpoints=checkpoints,
    )
    sessions = SessionService(
        store=store,
        bus=bus,
        project_root=project_root,
        working_dir=working_dir,
        notebook_path=notebook_path,
        rules_for=permissions.rules_for,
        locks=SessionLocks(),
        checkpoints=checkpoints,
    )
    shared = workspace.services
    sessions.guarded = lambda path: shared.guard.protects(path, project_root, working_dir)  # as reconfigured
    runner = Runner(workspace, sessions, generate_titles=generate_titles, interactive=interactive)
    if completions is None:
        if isinstance(client, CompletionClient):
            completions = client
        else:
            from jupyter_agent.providers.inline_client import LiteLLMCompletionClient  # litellm is slow

            completions = LiteLLMCompletionClient()
    runtime = Runtime(workspace, sessions, runner, InlineCompletions(workspace, completions))
    shared.guard, shared.sandbox = security(config, project_root, store)
    shared.require_contained, shared.admin_file = config.require_contained_kernel, config.admin_file
    shared.notebook_review = config.notebook.review
    checkpoints.live_notebook = functools.partial(live_notebook, shared)
    reviews = Reviews(store, bus, shared.staging, checkpoints, runner.recorder_for)
    shared.staging.on_change, shared.staging.handler = reviews.changed, reviews.decided
    if shared.permission_rule is None:
        shared.permission_rule = permissions.action
    if shared.run_child is None:
        shared.run_child = functools.partial(run_child, runtime)
    shared.outputs = store.path.parent / OUTPUTS
    shared.audit = audit_sink(config, notebook_path, shared)
    cleanup(store.path.parent)  # 7-day retention of saved tool outputs
    recover_abandoned(store)  # parts left "running" by a killed process
    return runtime


def reconfigure(runtime: Runtime, config: Config) -> None:
    """Give a live runtime a configuration read again (a kernel's files or variables changed).

    What ``build_runtime`` derived from the old one is derived again; runs read the rest
    (model, limits, permissions, budgets) when they start. MCP servers whose entry did not
    change keep running (a run may be calling them); the others stop and start on next use."""
    _register_secrets(config)
    workspace = runtime.workspace
    if config.store != workspace.config.store:  # the open store stays: its sessions are in use
        workspace.services.notices.append(
            "`store` changed: this kernel keeps its sessions where they are until it restarts."
        )
    workspace.config = config
    workspace.permissions.config = config
    workspace.services.guard, workspace.services.sandbox = security(
        config, runtime.sessions.project_root, workspace.store
    )
    workspace.services.require_contained = config.require_contained_kernel
    workspace.services.admin_file = config.admin_file
    workspace.services.audit = audit_sink(config, runtime.sessions.notebook_path, workspace.services)
    workspace.services.notebook_review = config.notebook.review
    if workspace.checkpoints is not None:
        workspace.checkpoints.reconfigure(config.checkpoint)
    manager = manager_of(workspace.services)
    if manager is not None:
        manager.reconfigure(config.mcp)
        sync_tools(workspace.registry, manager)  # a server removed: its tools go now
        if not config.mcp:
            manager.close()
            workspace.services.mcp = None


def security(
    config: Config, project_root: Path, store: SqliteStore | None = None
) -> tuple[Guard, SandboxPolicy]:
    """The protected and hidden paths and the bash sandbox, from ``protected`` and ``sandbox``;
    a store kept outside ``.jupyter-agent/`` (and the folder of such stores) is protected too."""
    box = config.sandbox
    where = store.location if store is not None else None
    stores = [p for p in (where.folder, where.base) if p is not None] if where and where.base else []
    audit = Path(config.audit).expanduser() if config.audit and config.audit != SYSLOG else None
    guard = Guard.build(os.environ, config.protected, box.deny_read, stores, audit)
    writable = tuple(project_root / Path(p).expanduser() for p in box.writable)  # absolute stays
    return guard, SandboxPolicy(enabled=box.enabled, network=box.network, writable=writable)


def audit_sink(config: Config, notebook: str | None, services: Services) -> Sink | None:
    """The admin's audit trail (``audit``) for this notebook's tool calls, None when not kept.
    A line that cannot be written is told once (then on each new problem); calls go on."""
    if not config.audit:
        return None
    log = AuditLog(config.audit)
    told: set[str] = set()

    def write(record: dict[str, Any]) -> None:
        if not log.write({"notebook": notebook, **record}) and log.problem and log.problem not in told:
            told.add(log.problem)
            services.notices.append(f"{log.problem} Tool calls go on unrecorded; tell your administrator.")

    return write
