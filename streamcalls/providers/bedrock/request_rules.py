"""Bedrock Converse's request fields: the ``toolConfig.tools`` tool specifications.

AWS checks a request against the service model's constraints before
anything else and answers a 400 ``ValidationException`` listing every
violation, "N validation error(s) detected: Value ... at '<path>' failed to
satisfy constraint: Member must ...", joined by "; ", the path 1-based with
``member`` for each list element (as the history's role check,
:mod:`.history_rules`).  A ``toolSpec`` needs a ``name`` (1 to 64
characters of ``[a-zA-Z0-9_-]+``: "Value 'Complete Session' at
'toolConfig.tools.22.member.toolSpec.name' failed to satisfy constraint:
Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
aws-samples/remote-swe-agents#457) and an ``inputSchema`` (botocore's
``bedrock-runtime`` model: ``ToolSpecification`` requires both;
``ToolName`` is the pattern above).  A required member that is missing is
"Value null at '<path>' failed to satisfy constraint: Member must not be
null", AWS's wording for every required member.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._rejected import Rejected
from .history_rules import constraint_errors

__all__ = ("bedrock_request",)

TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]+")


def bedrock_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a Converse request whose tool specifications break the service model's constraints."""
    config = request.get("toolConfig")
    tools = config.get("tools") if isinstance(config, dict) else None
    errors: list[str] = []
    for index, tool in enumerate(tools if isinstance(tools, list) else ()):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            continue
        path = f"toolConfig.tools.{index + 1}.member.toolSpec"
        for field in ("name", "inputSchema"):
            if spec.get(field) is None:
                errors.append(
                    f"Value null at '{path}.{field}' failed to satisfy constraint: Member must not be null"
                )
        errors += constraint_errors(spec.get("name"), f"{path}.name", TOOL_NAME)
    if errors:
        count = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''} detected: "
        raise Rejected(count + "; ".join(errors), kind="ValidationException")
