# The SDK overloads of messages() return the SDKs' TypedDicts, the one for any name dict[str, Any];
# mypy calls that an unsafe overlap, but at run time both are the same dict.
# mypy: disable-error-code="overload-overlap"
"""Running tools the moment their calls complete, while the stream goes on.

::

    async with streamcalls.run_tools(events, tools={"get_weather": get_weather}) as run:
        async for item in run:        # every event, and each ToolResult as its tool finishes
            ...

Why a context manager around the iterator: the tools run in an anyio task
group, and a task group must be entered and left by the same task around a
block.  An async generator that yields from inside a task group breaks that
rule as soon as its consumer breaks out of the loop or is cancelled (see
anyio's docs and trio's, PEP 789); ``async with`` leaves it at a place that
is well defined -- the end of the block -- where running tools are cancelled
and the source is closed.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, overload

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from .._errors import ProviderFailure, UsageError
from .._events import Event, ProviderError, ToolCall, ToolCallCompleted, ToolCallFailed
from .._names import CodecProviderName, OpenAIChatName
from .._results import ToolResult
from .._turn import Turn, TurnBuilder
from ..codec._history import encode_turn, failed_call
from ..codec._params import AnthropicMessage, OpenAIMessage, ResponsesItem
from ..codec._tool import Tool
from ._aparse import aclose_quietly
from ._invoke import Invoker, Tools, tools_by_name

if TYPE_CHECKING:
    from builtins import function  # see codec/_tool.py: it exists in the type stubs only

__all__ = ("ToolRun", "run_tools")

Item = Event | ToolResult
"""What a :class:`ToolRun` yields."""


class _SourceFailed:
    """The events' source raised: re-raised in the consumer's task, at its loop."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


_Message = Event | ToolResult | _SourceFailed


# Two signatures for mypy: functions as their own Callable types (and callable
# objects), and the ``function`` type it infers for a literal of functions
# with different signatures ({"get_weather": get_weather, "get_time": get_time}).
@overload
def run_tools(
    events: AsyncIterable[Event],
    tools: Mapping[str, Callable[..., Any] | Tool] | Sequence[Callable[..., Any] | Tool],
    *,
    max_concurrency: int | None = 8,
    timeout: float | None = None,
    context: object = None,
    raise_provider_errors: bool = False,
) -> ToolRun: ...
@overload
def run_tools(
    events: AsyncIterable[Event],
    tools: Mapping[str, function | Tool] | Sequence[function | Tool],
    *,
    max_concurrency: int | None = 8,
    timeout: float | None = None,
    context: object = None,
    raise_provider_errors: bool = False,
) -> ToolRun: ...
def run_tools(
    events: AsyncIterable[Event],
    tools: Tools,
    *,
    max_concurrency: int | None = 8,
    timeout: float | None = None,
    context: object = None,
    raise_provider_errors: bool = False,
) -> ToolRun:
    """Run each call's tool as soon as its ``ToolCallCompleted`` arrives.

    ``events`` is an async iterable of events, typically :func:`streamcalls.aparse`
    or :func:`streamcalls.from_httpx`.  ``tools`` is either

    - a list of typed functions and :meth:`Tool.from_function
      <streamcalls.Tool.from_function>` tools: each call's arguments are
      checked and converted to the annotated types first; arguments that do
      not fit give an error result naming the tool, the argument's path and
      what was expected (``invalid arguments for get_weather: Expected int,
      got str - at $.days``), and the function is not called; or
    - a mapping ``{name: fn}``: ``fn(**call.arguments)`` as they are (its
      values may also be ``from_function`` tools).

    An async function is awaited, a sync one runs in a worker thread
    (``anyio.to_thread``).  At most ``max_concurrency`` tools run at once
    (``None``: no limit); a call waits for a free slot.  ``timeout`` is the
    seconds each tool may run (``None``: no limit; a tool's own
    ``from_function(..., timeout=)`` comes first): past it the tool is
    cancelled (a sync tool's thread is abandoned) and its result is an error
    saying it timed out; the other tools go on.

    ``context`` is what the tools need and the model never sees (a database
    handle, the user): a ``from_function`` tool with a parameter annotated
    :class:`ToolContext[Deps] <streamcalls.ToolContext>` gets
    ``ToolContext(context, call)`` there.  Such a tool needs ``context=``, of
    its ``Deps`` type where that is a class.

    The returned :class:`ToolRun` is an async iterator: it yields every event
    in stream order, interleaved with a :class:`~streamcalls.ToolResult` for
    each call in the order the tools finish (always after that call's
    ``ToolCallCompleted``).  Use it as an async context manager, so that
    leaving the loop early cancels what still runs at once::

        async with streamcalls.run_tools(events, tools=[get_weather]) as run:
            async for item in run:
                if isinstance(item, streamcalls.ToolResult): ...
                elif isinstance(item, streamcalls.TextDelta): ...
        messages += run.messages("openai")  # the next request's messages

    or iterate it directly -- ``async for item in streamcalls.run_tools(...)``
    -- wrapped in ``contextlib.aclosing(...)`` if the loop may end early.
    Only the results: ``async for result in run.results()``.

    A tool that raises gives a result with ``is_error=True`` and content
    ``"ExceptionType: message"``; so does a call to a name not in ``tools``.
    A returned ``str`` is the content as it is, any other value is
    JSON-encoded with msgspec (Structs, dataclasses, datetimes, ...; a
    pydantic model as its ``model_dump(mode="json")``).  Calls
    that failed to parse (``ToolCallFailed``) are yielded as events and run
    nothing.  The iteration ends once the stream has ended and every started
    tool has finished.

    If the source breaks off (``StreamInterrupted``, ``StreamStalled``, any
    exception from it), the tools of the calls that had completed run to
    their end (bounded by their timeout) and their results are yielded; then
    the source's error is raised from the loop.  Leaving the block early --
    ``break``, an exception, or cancellation of the enclosing scope -- cancels
    the tools still running and closes the source.  Reading is paced by the
    consumer: the next event is read once the previous one is taken.

    ``raise_provider_errors=True``: a :class:`~streamcalls.ProviderError`
    event ends the run the same way -- the tools of the calls that had
    completed finish, their results are yielded -- and is then raised as
    :class:`~streamcalls.ProviderFailure` (the event is not yielded), for a
    loop that retries a failed request in one ``except``.

    :raises UsageError: at the call, for tools that cannot run (see
        :meth:`Tool.from_function <streamcalls.Tool.from_function>`), a
        ``max_concurrency`` below 1, a ``timeout`` that is not positive, a
        tool that takes a ``ToolContext`` without a ``context`` (of its type),
        or a ``raise_provider_errors`` that is not a bool.
    """
    if not hasattr(events, "__aiter__"):
        raise UsageError(f"run_tools() takes an async iterable of events, not {type(events).__name__}")
    if max_concurrency is not None and (type(max_concurrency) is not int or max_concurrency < 1):
        raise UsageError(f"max_concurrency must be at least 1 (or None), not {max_concurrency!r}")
    if type(raise_provider_errors) is not bool:
        raise UsageError(f"raise_provider_errors must be True or False, not {raise_provider_errors!r}")
    invokers = tools_by_name(tools, timeout, context)
    limit = math.inf if max_concurrency is None else max_concurrency
    return ToolRun(events, invokers, limit, raise_provider_errors=raise_provider_errors)


class ToolRun:
    """A run of tools over a stream of events; see :func:`run_tools`."""

    __slots__ = (
        "_bare",
        "_ended",
        "_events",
        "_limiter",
        "_raises",
        "_receive",
        "_results",
        "_task_group",
        "_tools",
        "_turn",
    )

    def __init__(
        self,
        events: AsyncIterable[Event],
        tools: dict[str, Invoker],
        max_concurrency: float,
        *,
        raise_provider_errors: bool = False,
    ) -> None:
        self._events = events
        self._raises = raise_provider_errors
        self._tools = tools
        self._limiter = anyio.CapacityLimiter(max_concurrency)
        self._task_group: TaskGroup | None = None
        self._receive: MemoryObjectReceiveStream[_Message] | None = None
        self._bare: AsyncGenerator[Item, None] | None = None  # iterated without the block
        self._turn = TurnBuilder()
        self._results: dict[str, ToolResult] = {}  # by call id
        self._ended = False  # the iteration ended, or the block was left

    # -- the block ---------------------------------------------------------------

    async def __aenter__(self) -> ToolRun:
        if self._task_group is not None or self._receive is not None:
            raise UsageError("a ToolRun is entered once; call run_tools() again for another stream")
        # No buffer: the source is read one event ahead of the consumer.
        send, receive = anyio.create_memory_object_stream[_Message](0)
        self._receive = receive
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        task_group.start_soon(self._pump, send)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        task_group, receive = self._task_group, self._receive
        assert task_group is not None
        assert receive is not None
        self._ended = True
        receive.close()
        if exc is None or isinstance(exc, (Exception, GeneratorExit)):
            # The block ended (all read, a break, the bare loop's generator
            # closed) or raised: whatever still runs is no longer wanted.  The block's own error stays as it is,
            # not wrapped in an exception group: the task group is only told
            # to wind its tasks down.
            task_group.cancel_scope.cancel()
            await task_group.__aexit__(None, None, None)
            return None
        # Cancellation (or KeyboardInterrupt, ...): the task group cancels its
        # tasks and lets the exception through.
        return await task_group.__aexit__(exc_type, exc, tb)

    # -- iteration ---------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[Item]:
        if self._receive is not None:
            return self  # inside the block
        if self._bare is None:
            self._bare = self._iterate_bare()
        return self._bare

    async def _iterate_bare(self) -> AsyncGenerator[Item, None]:
        """``async for`` without ``async with``: the block, held by this generator.

        The task group lives in the generator, not in the caller's task, so an
        early ``break`` leaves nothing entered there; ``aclose()`` (e.g. through
        ``contextlib.aclosing``) winds it down at once.
        """
        async with self:
            async for item in self:
                yield item

    async def aclose(self) -> None:
        """End a run iterated without its block: cancel what still runs, close the source."""
        if self._bare is not None:
            await self._bare.aclose()

    async def __anext__(self) -> Item:
        receive = self._receive
        if receive is None:
            raise UsageError("iterate a ToolRun with async for (or inside async with run_tools(...) as run)")
        try:
            message = await receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._ended = True
            raise StopAsyncIteration from None
        if type(message) is _SourceFailed:
            self._ended = True
            raise message.error
        if type(message) is ToolResult:
            self._results[message.call_id] = message
        else:
            self._turn.add(message)
        return message  # type: ignore[return-value]

    async def results(self) -> AsyncIterator[ToolResult]:
        """Only the results, in the order the tools finish (the events are read and dropped)."""
        async for item in self:
            if type(item) is ToolResult:
                yield item

    @property
    def turn(self) -> Turn:
        """The turn of the run's stream so far (all of it once the loop has ended): its text,
        reasoning and calls in order, its finish reason, usage and errors -- see
        :class:`~streamcalls.Turn`.  :meth:`messages` writes it back."""
        return self._turn.turn

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The calls of this turn so far, in stream order, as :meth:`messages` writes them.

        A call that failed to parse is here with empty arguments (its result says
        why), so that an agent loop goes on while the model has calls to make::

            while True:
                async with run_tools(...) as run:
                    ...
                messages += run.messages(provider)
                if not run.calls:
                    break  # the model answered without calls
        """
        turn = self._turn.turn
        failed = [failed_call(e)[0] for e in turn.errors if type(e) is ToolCallFailed and e.name]
        return tuple(sorted((*turn.calls, *failed), key=lambda call: call.index))

    @overload
    def messages(self, provider: OpenAIChatName) -> list[OpenAIMessage]: ...
    @overload
    def messages(self, provider: Literal["openai-responses"]) -> list[ResponsesItem]: ...
    @overload
    def messages(self, provider: Literal["anthropic"]) -> list[AnthropicMessage]: ...
    @overload
    def messages(self, provider: CodecProviderName) -> list[dict[str, Any]]: ...
    def messages(self, provider: CodecProviderName) -> Any:
        """The messages to append to the conversation for the next request, after the loop.

        :func:`~streamcalls.encode_turn` of :attr:`turn` with the tools' results:
        the assistant's turn -- its reasoning with everything the provider
        requires back (Anthropic's signed thinking blocks, Responses reasoning
        items, ``reasoning_content``, ...), its text and its calls, in the order
        they came -- then the results in call order, grouped as the provider
        requires (as :func:`~streamcalls.encode_result` groups a list).  No call:
        the assistant's turn alone (nothing if it wrote nothing).  Every call gets
        a result, since all but Ollama refuse a call without one: a call whose
        tool did not finish (the run was left early) gets an error result saying
        so, and a call that failed to parse goes in with empty arguments and an
        error result quoting why, so that the model can call again.

        :raises UsageError: before the loop has ended, or for an unknown provider.
        """
        if not self._ended:
            raise UsageError("messages() is read after the loop: the turn is not over yet")
        return encode_turn(self._turn.turn, provider, self._results.values())

    # -- the tasks ---------------------------------------------------------------

    async def _pump(self, send: MemoryObjectSendStream[_Message]) -> None:
        """Read the events; start a tool per completed call; hand everything on.

        The tools run in a task group of their own, so that when the source
        ends -- or breaks off -- the pump waits for them before it reports the
        end (or the source's error).
        """
        try:
            async with send:
                async with anyio.create_task_group() as tools:
                    error = await self._read(send, tools)
                if error is not None:  # every started tool has delivered its result
                    await send.send(_SourceFailed(error))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the consumer left the block

    async def _read(self, send: MemoryObjectSendStream[_Message], tools: TaskGroup) -> Exception | None:
        """Hand on the events until the source ends (``None``) or raises (its error)."""
        events = self._events.__aiter__()
        try:
            while True:
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    return None
                except Exception as exc:
                    return exc
                if type(event) is ProviderError and self._raises:
                    return ProviderFailure(event)  # raised once the tools have finished
                if type(event) is ToolCallCompleted:
                    delivered = anyio.Event()
                    tools.start_soon(self._run_tool, event.call, send.clone(), delivered)
                    try:
                        await send.send(event)
                    finally:
                        delivered.set()
                else:
                    await send.send(event)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return None  # the consumer left the block; the run is being cancelled
        finally:
            await aclose_quietly(events, self._events)

    async def _run_tool(
        self, call: ToolCall, send: MemoryObjectSendStream[_Message], delivered: anyio.Event
    ) -> None:
        async with send:
            invoker = self._tools.get(call.name)
            if invoker is None:
                known = ", ".join(repr(name) for name in self._tools) or "none"
                result = ToolResult(call.id, call.name, f"unknown tool {call.name!r} (known: {known})", True)
            else:
                async with self._limiter:
                    result = await invoker.run(call)
            await delivered.wait()  # a result never overtakes its call's ToolCallCompleted
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await send.send(result)
