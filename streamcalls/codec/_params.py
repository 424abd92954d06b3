"""The official SDKs' request types that the codec's results are typed as.

Under a type checker these are the installed SDKs' own ``TypedDict``\\ s, so
the installed version decides their keys (they change from release to
release; mirroring them here would drift).  Where an SDK is not installed,
its import fails, and a type checker reads the name as ``Any``: for a
package's own modules mypy does not report the failed import, and this
repository's pyproject says ``ignore_missing_imports`` for both SDKs.

At run time the SDKs are never imported: the names are ``dict[str, Any]``
(for ``typing.get_type_hints`` and documentation tools), which is what the
values are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = (
    "AnthropicMessage",
    "AnthropicTool",
    "OpenAIAssistantMessage",
    "OpenAIMessage",
    "OpenAITool",
    "OpenAIToolMessage",
    "ResponsesItem",
    "ResponsesTool",
)

if TYPE_CHECKING:
    # Names present in every release of the SDKs' current major versions
    # (the newer, narrower ones -- ChatCompletionFunctionToolParam,
    # anthropic's AssistantMessageParam -- are not in older releases).
    from anthropic.types import MessageParam as AnthropicMessage
    from anthropic.types import ToolParam as AnthropicTool
    from openai.types.chat import ChatCompletionAssistantMessageParam as OpenAIAssistantMessage
    from openai.types.chat import ChatCompletionMessageParam as OpenAIMessage
    from openai.types.chat import ChatCompletionToolMessageParam as OpenAIToolMessage
    from openai.types.chat import ChatCompletionToolParam as OpenAITool
    from openai.types.responses import FunctionToolParam as ResponsesTool
    from openai.types.responses import ResponseInputItemParam as ResponsesItem
else:
    AnthropicMessage = AnthropicTool = dict[str, Any]
    OpenAIAssistantMessage = OpenAIMessage = OpenAIToolMessage = OpenAITool = dict[str, Any]
    ResponsesTool = ResponsesItem = dict[str, Any]
