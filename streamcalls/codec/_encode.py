# The SDK overloads return the SDKs' TypedDicts, the one for any CodecProviderName dict[str, Any];
# mypy calls that an unsafe overlap, but at run time both are the same dict.
# mypy: disable-error-code="overload-overlap"
"""The request side of a tool loop, typed: ``encode_tools``, ``encode_call``, ``encode_result``.

Every shape is a plain ``dict``/``list`` (``msgspec.json.encode`` and any
HTTP client take it as it is), written from each provider's documented
request format by its package's ``encoding`` module
(``streamcalls/providers/<name>/encoding.py``), found through the provider
registry:

============================  ==================================================  ==========================================
provider                      a call (``encode_call``)                             a result (``encode_result``)
============================  ==================================================  ==========================================
OpenAI Chat (and aliases)     ``assistant`` message, ``tool_calls[]`` with JSON     ``{"role": "tool", "tool_call_id"}``
                              string ``arguments``
OpenAI Responses              ``function_call`` items (``call_id``, JSON string)   ``function_call_output`` item
Anthropic                     ``assistant`` message, ``tool_use`` blocks           ``user`` message, ``tool_result`` blocks
Ollama                        ``assistant`` message, object ``arguments``          ``{"role": "tool", "tool_name"}``
Gemini                        ``model`` content, ``functionCall`` parts            ``user`` content, ``functionResponse`` parts
Bedrock Converse              ``assistant`` message, ``toolUse`` blocks            ``user`` message, ``toolResult`` blocks
Cohere v2                     ``assistant`` message, ``tool_calls[]``, tool_plan   ``{"role": "tool", "tool_call_id"}``
============================  ==================================================  ==========================================

A call's Gemini 3 signature (:attr:`ToolCall.thought_signature
<streamcalls.ToolCall.thought_signature>`) goes back where it came from:
``thoughtSignature`` beside the Gemini ``functionCall``, and
``extra_content.google.thought_signature`` on an OpenAI Chat call (Gemini's
compatible endpoint).

A failed tool (``ToolResult.is_error``) is flagged where the provider has a
flag -- Anthropic ``is_error: true``, Bedrock ``status: "error"``, Gemini's
``response: {"error": ...}`` (instead of ``{"output": ...}``) -- and
elsewhere its content is prefixed with ``"Error: "``.

Here is what a caller sees:

- With a provider name written as a literal, each result is typed as the
  official SDK's own request type, where there is one: the openai SDK's
  ``ChatCompletionToolParam``, ``ChatCompletionAssistantMessageParam``,
  ``ChatCompletionToolMessageParam`` (Responses: ``FunctionToolParam``,
  ``ResponseInputItemParam``), the anthropic SDK's ``ToolParam`` and
  ``MessageParam`` (see :mod:`._params`).  So ``mypy --strict`` accepts them
  in ``client.chat.completions.create(tools=..., messages=...)``,
  ``client.responses.create(tools=..., input=...)`` and
  ``client.messages.create(tools=..., messages=...)``.
- With a name typed :data:`~streamcalls.codec.CodecProviderName` (a
  provider-generic loop passes the configured name through),
  ``list[dict[str, Any]]`` from ``encode_tools`` and ``encode_result``, and
  the union of every provider's type from ``encode_call``.  A plain ``str`` is refused by the
  type checker, as a misspelt literal is: a name read at run time is
  ``typing.cast(CodecProviderName, name)``, and an unknown one is a
  :class:`~streamcalls.UsageError` that suggests the name meant.

One item in, one message out; a list in, a list out (to ``.extend`` the
conversation with), whatever the provider groups into one message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, overload

from .._errors import UsageError
from .._events import ToolCall
from .._names import CodecProviderName, OpenAIChatName
from .._results import ToolResult
from ..providers._encoding import Message
from ._names import encoding_of
from ._params import (
    AnthropicMessage,
    AnthropicTool,
    OpenAIAssistantMessage,
    OpenAITool,
    OpenAIToolMessage,
    ResponsesItem,
    ResponsesTool,
)
from ._tool import Tool, ToolDefinitions, as_tools

__all__ = ("Message", "ToolSpec", "encode_call", "encode_result", "encode_tools")

ToolSpec = Tool | Mapping[str, Any]
"""One tool definition as ``encode_tools`` takes it: a :class:`Tool`, or an OpenAI-style dict."""

Calls = ToolCall | Iterable[ToolCall]
Results = Iterable[ToolResult]
OneMessageName = Literal["ollama", "gemini", "bedrock", "cohere"]
"""Providers without typed SDK params here, whose assistant turn is one message."""


@overload
def encode_tools(tools: ToolDefinitions, provider: OpenAIChatName) -> list[OpenAITool]: ...
@overload
def encode_tools(tools: ToolDefinitions, provider: Literal["openai-responses"]) -> list[ResponsesTool]: ...
@overload
def encode_tools(tools: ToolDefinitions, provider: Literal["anthropic"]) -> list[AnthropicTool]: ...
@overload
def encode_tools(tools: ToolDefinitions, provider: CodecProviderName) -> list[Message]: ...
def encode_tools(tools: ToolDefinitions, provider: CodecProviderName) -> Any:
    """Tool definitions in a provider's request format: the value of its ``tools`` field.

    ``tools`` holds :class:`Tool` objects or OpenAI-style dicts
    (``{"type": "function", "function": {...}}``, or flat ``{name,
    description, parameters}``).  For Bedrock the list goes in
    ``toolConfig={"tools": ...}``; for Gemini it is one ``Tool`` with every
    ``functionDeclarations`` entry.

    ``provider`` is any name of :data:`~streamcalls.codec.CodecProviderName`.
    Written as a literal, it types the result as the SDK's tool param
    (openai: ``ChatCompletionToolParam``, Responses: ``FunctionToolParam``,
    anthropic: ``ToolParam``); a name typed ``CodecProviderName`` (chosen
    at run time) gives ``list[dict[str, Any]]``.

    :raises UsageError: for an unknown provider or a tool without a name.
    """
    return encoding_of(provider).tools(as_tools(tools))


@overload
def encode_call(
    calls: Calls, provider: OpenAIChatName, *, text: str | None = None
) -> OpenAIAssistantMessage: ...
@overload
def encode_call(
    calls: Calls, provider: Literal["openai-responses"], *, text: str | None = None
) -> list[ResponsesItem]: ...
@overload
def encode_call(
    calls: Calls, provider: Literal["anthropic"], *, text: str | None = None
) -> AnthropicMessage: ...
@overload
def encode_call(calls: Calls, provider: OneMessageName, *, text: str | None = None) -> Message: ...
def encode_call(calls: Calls, provider: CodecProviderName, *, text: str | None = None) -> Any:
    """The assistant's turn that made these calls, for the conversation history.

    One call or several (parallel calls belong in one assistant message), with
    the assistant's ``text`` before them if there was any.  Returns one
    message to ``.append`` -- for OpenAI Responses, the list of input items
    to ``.extend`` with (a ``message`` item for the text, then one
    ``function_call`` item per call) -- so that ``extract(encode_call(calls,
    p))`` gives the calls back (as native calls, numbered from 0).  Cohere's
    text before its calls is its ``tool_plan``.

    Typed as the SDK's message param for a literal ``provider`` (openai:
    ``ChatCompletionAssistantMessageParam``; Responses:
    ``list[ResponseInputItemParam]``; anthropic: ``MessageParam``); a name
    typed ``CodecProviderName`` gives the union of these (a list where it may
    be Responses: ``isinstance(turn, list)`` tells).

    Gemini 3's signature on a call (:attr:`ToolCall.thought_signature
    <streamcalls.ToolCall.thought_signature>`) is written back: Gemini's
    ``thoughtSignature`` beside the ``functionCall``, or OpenAI Chat's
    ``extra_content.google.thought_signature`` (Gemini's compatible
    endpoint).  Anthropic's extended thinking (signed ``thinking`` blocks)
    is not carried: with it, resend the response's own assistant message.

    :raises UsageError: for an unknown provider, or no calls.
    """
    encoder = encoding_of(provider).calls
    listed = [calls] if isinstance(calls, ToolCall) else list(calls)
    if not listed:
        raise UsageError("encode_call() needs at least one call")
    for call in listed:
        if not isinstance(call, ToolCall):
            raise UsageError(f"encode_call() takes ToolCall objects, not {type(call).__name__}")
    return encoder(listed, text)


@overload
def encode_result(result: ToolResult, provider: OpenAIChatName) -> OpenAIToolMessage: ...
@overload
def encode_result(result: Results, provider: OpenAIChatName) -> list[OpenAIToolMessage]: ...
@overload
def encode_result(result: ToolResult, provider: Literal["openai-responses"]) -> ResponsesItem: ...
@overload
def encode_result(result: Results, provider: Literal["openai-responses"]) -> list[ResponsesItem]: ...
@overload
def encode_result(result: ToolResult, provider: Literal["anthropic"]) -> AnthropicMessage: ...
@overload
def encode_result(result: Results, provider: Literal["anthropic"]) -> list[AnthropicMessage]: ...
@overload
def encode_result(result: ToolResult, provider: CodecProviderName) -> Message: ...
@overload
def encode_result(result: Results, provider: CodecProviderName) -> list[Message]: ...
def encode_result(result: ToolResult | Results, provider: CodecProviderName) -> Any:
    """Tool results as the provider's tool-result messages.

    - One :class:`~streamcalls.ToolResult` gives one message (for OpenAI
      Responses, one item): ``messages.append(encode_result(r, p))``.
    - A list (any iterable) of them -- the results of one turn's calls --
      always gives a **list** of messages: ``messages.extend(encode_result(
      [r1, r2], p))``.  For Anthropic, Gemini and Bedrock that list holds
      one user message carrying every result (their turns must alternate;
      Anthropic asks for all results of a turn in one message); for the
      others it holds one message per result.  Appending the list itself
      would nest it, which every provider rejects.  An empty list gives
      ``[]``.

    Typed as the SDK's param for a literal ``provider`` (openai:
    ``ChatCompletionToolMessageParam``; Responses: ``ResponseInputItemParam``;
    anthropic: ``MessageParam``); a name typed ``CodecProviderName`` gives
    ``dict[str, Any]``.

    :raises UsageError: for an unknown provider, or an item that is not a ``ToolResult``.
    """
    encoder = encoding_of(provider).results
    if isinstance(result, ToolResult):
        return encoder([result])[0]
    listed = list(result)
    for item in listed:
        if not isinstance(item, ToolResult):
            raise UsageError(f"encode_result() takes ToolResult objects, not {type(item).__name__}")
    # No results, no message: not even the grouping providers' empty user message.
    return encoder(listed) if listed else []
