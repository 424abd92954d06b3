"""Bedrock Converse's complete response: ``{output: {message}}``, or the message itself.

See :mod:`streamcalls._readers` for what a reader returns.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..._found import Found
from .._bodies import as_dict as _dict
from .._bodies import as_list as _list
from .._bodies import unrecognized as _unrecognized

__all__ = (
    "read_bedrock",
    "stream_end",
)


def read_bedrock(obj: Any) -> Found:
    if isinstance(obj, dict) and isinstance(obj.get("output"), dict):
        message = _dict(obj["output"].get("message"))
    elif isinstance(obj, dict) and "content" in obj:
        message = obj
    else:
        raise _unrecognized("Bedrock Converse", obj)
    found = Found()
    for block in _list(message.get("content")):
        block = _dict(block)
        use = block.get("toolUse")
        if isinstance(use, dict) and use.get("type") != "server_tool_use":
            found.call(use.get("toolUseId"), use.get("name"), use, "input")
        elif "text" in block:
            found.text(block["text"])
        elif "reasoningContent" in block:
            reasoning = _dict(block["reasoningContent"])
            if "redactedContent" in reasoning:
                found.reasoning("", "redactedContent", redacted=_blob(reasoning["redactedContent"], found))
            else:
                said = _dict(reasoning.get("reasoningText"))
                found.reasoning(said.get("text"), "reasoningText", signature=said.get("signature"))
        else:
            found.end_text()  # a server tool's use or result (Nova's code interpreter), an image, ...
    found.finish_reason = obj.get("stopReason")
    found.usage = obj.get("usage")
    return found.done()


def _blob(value: Any, found: Found) -> Any:
    """A blob as base64 text: a JSON body holds it so; boto3 hands the bytes themselves.  Text that is
    not base64 is no blob's: a problem, left out."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, str):
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            found.problems.append(("a reasoning block's redactedContent is not base64; ignored", value[:200]))
            return None
    return value


def stream_end(found: Found, obj: Any) -> list[dict[str, Any]]:
    """The end of the stream this complete response stands for: the records its last events would be."""
    return [{"messageStop": {"stopReason": found.finish_reason}}, {"metadata": {"usage": found.usage}}]
