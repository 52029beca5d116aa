"""The side panel's wire protocol over the ``jupyter_agent`` comm (pydantic, one source).

The comm target's name lives in ``comm_target.py``, which ``%load_ext`` imports cheaply.

Panel → kernel: :data:`PanelRequest` (discriminated on ``type``), including the widget's
own ``ready`` / ``stop`` / ``approve`` / ``compact``. Kernel → panel: the widget's
:data:`~jupyter_agent.ui.widget_protocol.UIMessage` stream (deltas, never whole texts) plus
:data:`PanelMessage` (discriminated on ``kind``): hello, the session list, completions,
and notebook operations the kernel asks of the panel (answered with ``nb_reply``).
``labextension/src/protocol.ts`` is generated from these models (``ui/tsgen.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from jupyter_agent.checkpoint.cells import CellStep
from jupyter_agent.tools.staging import StagedEdit
from jupyter_agent.ui.inline_protocol import InlineStateMsg
from jupyter_agent.ui.settings_protocol import SettingsMsg, SettingsRequest, SetupMsg, SetupRequest
from jupyter_agent.ui.widget_protocol import UIMessage, UIMessageAdapter

PROTOCOL_VERSION = 1


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


# ---------------------------------------------------------------- panel → kernel


class HelloRequest(_Wire):
    """Sent as the comm's open data (and again after a reconnect)."""

    type: Literal["hello"] = "hello"
    notebook_path: str | None = None
    """The notebook's path relative to the server root, as JupyterLab knows it."""


class ReadyRequest(_Wire):
    type: Literal["ready"] = "ready"
    view: str = ""


class ContextItem(_Wire):
    """Context attached with one click (the active cell, a selection), shown as a chip."""

    label: str
    text: str


class PromptRequest(_Wire):
    type: Literal["prompt"] = "prompt"
    text: str
    context: list[ContextItem] = Field(default_factory=list)


class ModelRequest(_Wire):
    """Use ``model`` for this panel's next prompts (empty: the configured default)."""

    type: Literal["set_model"] = "set_model"
    model: str = ""


class StopRequest(_Wire):
    type: Literal["stop"] = "stop"


class CompactRequest(_Wire):
    type: Literal["compact"] = "compact"


class OlderRequest(_Wire):
    """The page of messages before ``before`` (the "Show earlier messages" control)."""

    type: Literal["older"] = "older"
    session_id: str
    """The session the control was shown for: a request that crossed a switch is dropped."""
    before: str


class ApproveRequest(_Wire):
    type: Literal["approve"] = "approve"
    request_id: str
    reply: Literal["once", "always", "reject"]
    message: str = ""
    """The user's reason for a rejection (sent to the model)."""


class SessionsRequest(_Wire):
    type: Literal["sessions"] = "sessions"


class NewSessionRequest(_Wire):
    type: Literal["new_session"] = "new_session"


class SwitchSessionRequest(_Wire):
    type: Literal["switch_session"] = "switch_session"
    session_id: str


class DeleteSessionRequest(_Wire):
    type: Literal["delete_session"] = "delete_session"
    session_id: str


class RenameSessionRequest(_Wire):
    type: Literal["rename_session"] = "rename_session"
    session_id: str
    title: str


class CompleteRequest(_Wire):
    """``@`` completion: ``query`` is what follows the ``@`` (``df``, ``cell:``, ``file:da``)."""

    type: Literal["complete"] = "complete"
    request_id: str
    query: str = ""


class McpRequest(_Wire):
    """``list``: send the MCP servers' state now; ``restart``: stop and start them again."""

    type: Literal["mcp"] = "mcp"
    action: Literal["list", "restart"] = "list"


class FixRequest(_Wire):
    """Fix with agent: the front end's cell and error output, or (``/fix [CELL]``) only which
    cell, from what the kernel saw fail (``cell``: ``3``, ``[3]`` or a cell id; none: the latest)."""

    type: Literal["fix"] = "fix"
    cell: str | None = None
    cell_id: str | None = None
    source: str | None = None
    """The cell's source as it is now; None: use the kernel's record."""
    ename: str = ""
    evalue: str = ""
    traceback: list[str] = Field(default_factory=list)
    execution_count: int | None = None
    verify: bool = False
    """Fix what the last verification found (its report goes to the agent) instead of a cell."""


class AddCellRequest(_Wire):
    """The "Add as cell" button of a hidden-state marker: the run's code as a cell below ``cell_id``
    (the run's cell; for a panel prompt the active cell). ``code``: the code a saved
    transcript recorded, used when the kernel no longer knows the run (it restarted)."""

    type: Literal["add_cell"] = "add_cell"
    run: str
    cell_id: str | None = None
    code: str | None = None


class VerifyRequest(_Wire):
    """``/verify``: run the saved notebook in a fresh kernel and compare (Stop ends it)."""

    type: Literal["verify"] = "verify"
    with_agent: bool = False


class ReviewRequest(_Wire):
    """The user accepted or rejected a staged cell edit (in the notebook, the panel or a
    command); the panel applied it to the document and says how the cell was and is."""

    type: Literal["review"] = "review"
    staged_id: str
    decision: Literal["accept", "reject"]
    reason: str = ""
    """Why it was rejected (sent to the model)."""
    cell_id: str | None = None
    index: int | None = None
    prev_id: str | None = None
    """The cell above it (a revert puts a deleted cell back below it)."""
    before: dict[str, Any] | None = None
    """The cell before the edit was applied (None for an insert)."""
    after: dict[str, Any] | None = None
    """The cell after (None for a delete, or a rejection)."""
    edit: StagedEdit | None = None
    """The staged edit as the notebook kept it (who staged it: a restarted kernel still knows)."""


class RevertRequest(_Wire):
    """Undo from here: revert the session to before ``message_id`` (None: the last prompt)."""

    type: Literal["revert"] = "revert"
    message_id: str | None = None


class UnrevertRequest(_Wire):
    type: Literal["unrevert"] = "unrevert"


class SetCompletionRequest(_Wire):
    """The panel's inline completion switch (``%agent complete on|off`` for this kernel)."""

    type: Literal["set_completion"] = "set_completion"
    enabled: bool


class NotebookReply(_Wire):
    """The panel's answer to a :class:`NotebookOpMsg`."""

    type: Literal["nb_reply"] = "nb_reply"
    op_id: str
    ok: bool
    error: str | None = None
    cells: list[dict[str, Any]] | None = None
    """``read``: nbformat v4 cells (with ids and outputs)."""
    cell_id: str | None = None
    """``insert``: the new cell's id."""
    outputs: list[dict[str, Any]] | None = None
    """``run``: the cell's outputs once it finished."""
    done: list[str] | None = None
    """``restore``: what each step did (``In [3]: restored``)."""
    problems: list[str] | None = None
    """``restore``: the steps that could not be applied, and why."""


PanelRequest = (
    HelloRequest
    | ReadyRequest
    | PromptRequest
    | ModelRequest
    | StopRequest
    | CompactRequest
    | OlderRequest
    | ApproveRequest
    | SessionsRequest
    | NewSessionRequest
    | SwitchSessionRequest
    | RenameSessionRequest
    | DeleteSessionRequest
    | CompleteRequest
    | McpRequest
    | FixRequest
    | SettingsRequest
    | SetupRequest
    | AddCellRequest
    | VerifyRequest
    | ReviewRequest
    | RevertRequest
    | UnrevertRequest
    | SetCompletionRequest
    | NotebookReply
)
PanelRequestAdapter: TypeAdapter[PanelRequest] = TypeAdapter(
    Annotated[PanelRequest, Field(discriminator="type")]
)


# ---------------------------------------------------------------- kernel → panel


class SessionInfo(_Wire):
    id: str
    title: str
    updated: int
    """ms since epoch."""
    busy: bool = False
    created: int = 0
    """ms since epoch."""
    untitled: bool = False
    """No title yet (the stored placeholder): the panel says "New session · 13:43", local time."""


class HelloMsg(_Wire):
    kind: Literal["hello"] = "hello"
    version: int = PROTOCOL_VERSION
    session_id: str
    sessions: list[SessionInfo]
    busy: bool
    model: str | None = None
    models: list[str] = Field(default_factory=list)
    """The configured models the panel offers (default first)."""
    problem: str | None = None
    """Why a prompt would fail now (no model configured, missing key), shown up front."""
    setup: bool = False
    """No model or no key is usable: the panel opens on its setup view."""
    contained: bool = False
    """The kernel is contained (inside the sandbox as a whole): the panel says so."""


class SessionsMsg(_Wire):
    kind: Literal["sessions"] = "sessions"
    session_id: str
    sessions: list[SessionInfo]


class ResetMsg(_Wire):
    """The panel shows another session: clear the stream; its history follows."""

    kind: Literal["reset"] = "reset"
    session_id: str


class Completion(_Wire):
    label: str
    """What replaces the query after ``@`` (``df``, ``cell:3``, ``file:data/x.csv``)."""
    detail: str = ""


class CompletionsMsg(_Wire):
    kind: Literal["completions"] = "completions"
    request_id: str
    items: list[Completion]


class NotebookOpMsg(_Wire):
    """A notebook operation the kernel asks of the panel (the ``notebook_edit`` tool)."""

    kind: Literal["nb_op"] = "nb_op"
    op_id: str
    op: Literal["read", "insert", "replace", "delete", "run", "stage", "unstage", "restore"]
    index: int | None = None
    cell_id: str | None = None
    source: str | None = None
    cell_type: Literal["code", "markdown", "raw"] | None = None
    staged: StagedEdit | None = None
    """``stage``: the edit to show in the notebook for Accept / Reject (answered with the cell id)."""
    staged_ids: list[str] | None = None
    """``unstage``: staged edits to take back without applying them (their prompt was reverted)."""
    steps: list[CellStep] | None = None
    """``restore``: a revert's or unrevert's steps, applied in order in one go."""


class McpPromptView(_Wire):
    """A server's prompt, offered as the slash command ``/<server>:<name>``."""

    name: str
    description: str = ""
    usage: str
    """How to run it: ``/<server>:<name> arg=… [optional=…]``."""


class McpServerView(_Wire):
    name: str
    state: Literal["disabled", "not started", "starting", "connected", "failed"]
    source: str
    """The command (local) or URL (remote)."""
    tools: list[str] = Field(default_factory=list)
    """Tool names as the model sees them (``<server>_<tool>``)."""
    prompts: list[McpPromptView] = Field(default_factory=list)
    resources: int = 0
    """How many resources it lists (``@<server>:`` completes them)."""
    error: str | None = None
    """Why it failed (with its stderr tail), secrets redacted."""


class McpMsg(_Wire):
    """The configured MCP servers, listed under the session picker (empty: none configured).
    Sent on hello (servers start on the first prompt, not here) and when a run ends."""

    kind: Literal["mcp"] = "mcp"
    servers: list[McpServerView]


PanelMessage = (
    HelloMsg
    | SessionsMsg
    | ResetMsg
    | CompletionsMsg
    | NotebookOpMsg
    | McpMsg
    | InlineStateMsg
    | SettingsMsg
    | SetupMsg
)


def schema() -> dict[str, Any]:
    """The JSON Schema of both directions (what ``protocol.ts`` is generated from), and of
    the widget's stream alone (what its renderer handles)."""
    to_panel = TypeAdapter(Annotated[PanelMessage | UIMessage, Field(discriminator="kind")])
    return {
        "PanelRequest": PanelRequestAdapter.json_schema(mode="serialization"),
        "KernelMessage": to_panel.json_schema(mode="serialization"),
        "UIMessage": UIMessageAdapter.json_schema(mode="serialization"),
    }
