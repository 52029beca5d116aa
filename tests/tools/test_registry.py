"""The registry: specs, and error messages a model can act on."""

from __future__ import annotations

import re

import pytest

from jupyter_agent.tools.base import ToolError
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.read import ReadArgs, ReadTool
from jupyter_agent.tools.registry import ToolRegistry, default_registry

OWN_TOOLS = ["read", "write", "edit", "glob", "grep", "list", "bash", "skill", "todowrite"]


def test_default_registry_has_the_opencode_tools_in_order() -> None:
    registry = default_registry()
    assert [n for n in registry.names() if n in OWN_TOOLS] == OWN_TOOLS
    assert "task" in registry  # built by agent/, registered here so every runtime has it


def test_malformed_json() -> None:
    with pytest.raises(ToolError) as err:
        default_registry().validate("read", '{"filePath": ')
    assert str(err.value) == (
        "The arguments provided to the tool are invalid: the JSON does not parse: "
        "Expecting value: line 1 column 14 (char 13). Resend the call with valid JSON."
    )


def test_arguments_must_be_an_object() -> None:
    with pytest.raises(
        ToolError,
        match=r"must be a JSON object, got list.*Expected parameters: filePath, offset\?, limit\?",
    ):
        default_registry().validate("read", "[1]")


def test_validation_errors_list_every_field() -> None:
    with pytest.raises(ToolError) as err:
        default_registry().validate("read", '{"offset": "three", "limit": 0}')
    message = str(err.value)
    assert message.startswith("Invalid arguments for tool 'read':\n")
    assert "- filePath: Field required" in message
    assert re.search(r"- offset: Input should be a valid integer", message)
    assert "- limit: Input should be greater than or equal to 1" in message
    assert "Resend the call with fixed arguments." in message


def test_nested_validation_paths() -> None:
    raw = '{"todos": [{"content": "a", "status": "doing", "id": "1"}]}'
    with pytest.raises(ToolError, match=r"- todos\.0\.status: Input should be 'pending'"):
        default_registry().validate("todowrite", raw)


def test_unknown_tool_names_the_available_ones() -> None:
    registry = ToolRegistry([ReadTool()])
    with pytest.raises(ToolError) as err:
        registry.validate("nope", "{}")
    assert str(err.value) == "Unknown tool 'nope'. Available tools: read"


def test_valid_arguments_and_empty_string() -> None:
    registry = default_registry()
    args = registry.validate("read", '{"filePath": "a.txt", "offset": 4}')
    assert isinstance(args, ReadArgs) and args.offset == 4 and args.limit is None
    assert registry.validate("list", "").model_dump() == {"path": None, "ignore": None}


def test_specs_filter_and_schema_shape() -> None:
    registry = default_registry()
    (spec,) = registry.specs(["read"])
    assert spec["type"] == "function" and spec["function"]["name"] == "read"
    params = spec["function"]["parameters"]
    assert params["required"] == ["filePath"] and "title" not in params
    assert set(params["properties"]) == {"filePath", "offset", "limit"}
    assert all(p.get("description") for p in params["properties"].values())
    assert [s["function"]["name"] for s in registry.specs(["bash", "grep"])] == ["grep", "bash"]
    assert registry.specs([]) == []


def test_descriptions_come_from_text_files() -> None:
    registry = default_registry()
    for name in OWN_TOOLS:
        text = registry.get(name).spec()["function"]["description"]
        assert text.startswith(describe(name)) and len(text) > 80, name


def test_register_replaces_by_name() -> None:
    class Other(ReadTool):
        description = "replacement"

    registry = ToolRegistry([ReadTool()])
    registry.register(Other())
    assert len(registry) == 1 and registry.get("read").description == "replacement"
