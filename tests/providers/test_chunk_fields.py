"""Reading litellm's chunk objects quickly gives what ``getattr(obj, name, None)`` gives."""

from __future__ import annotations

from types import SimpleNamespace

from pydantic import BaseModel, ConfigDict

from jupyter_agent.providers.litellm_client import _read


class Delta(BaseModel):
    """Shaped like litellm's: declared optional fields (deleted when unset) and extras."""

    model_config = ConfigDict(extra="allow")
    reasoning_content: str | None = None
    thinking_blocks: list[dict[str, str]] | None = None

    @property
    def shouted(self) -> str:
        return str(self.__pydantic_extra__.get("content", "")).upper() if self.__pydantic_extra__ else ""


def test_fields_extras_deleted_fields_properties_and_other_objects() -> None:
    delta = Delta(content="hi", reasoning_content="hmm")
    del delta.thinking_blocks  # litellm deletes what the provider did not send
    for name in ("content", "reasoning_content", "thinking_blocks", "tool_calls", "shouted", "model_fields"):
        assert _read(delta, name) == getattr(delta, name, None), name
    plain = SimpleNamespace(content="x")
    assert _read(plain, "content") == "x" and _read(plain, "usage") is None
    assert _read(None, "content") is None
