"""Claude's rules for its thinking blocks in a tool loop, as Anthropic and Bedrock enforce them.

With thinking enabled, the assistant turn a request continues -- the
messages since the user's last prompt, when the request ends with tool
results -- must open with a ``thinking`` (or ``redacted_thinking``) block:
Anthropic refuses it otherwise with a 400 in the words of
:data:`THINKING_FIRST` (quoted by its users: deepset-ai/haystack-core-integrations#2146,
OpenRouterTeam/ai-sdk-provider#162).  And the thinking blocks of the turn
it answers must come back unchanged, in the order they came: a block whose
text or signature differs from what the model sent (or that the model
never sent there) is :data:`BAD_SIGNATURE` (anthropics/claude-code#10627;
the anthropic-sdk-python maintainers, #1598: the check fails when a block
"differs in any way from what was originally returned ... blocks reordered
or merged").  Bedrock says the same of Claude behind Converse, after "The
model returned the following errors: " (anomalyco/opencode#3077).

Both providers' messages reach these rules as :class:`Shown` blocks: the
block's kind (``thinking``, ``redacted_thinking``, or the kind the message
names, ``tool_use``, ``text``, ...) and, for a thinking block, its text and
signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ._rejected import Rejected

__all__ = ("BAD_SIGNATURE", "THINKING_FIRST", "Shown", "check_thinking")

THINKING_FIRST = (
    "{path}.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a "
    "final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and "
    "`tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
BAD_SIGNATURE = "{path}: Invalid `signature` in `thinking` block"

REASONING = ("thinking", "redacted_thinking")


class Shown(NamedTuple):
    """One content block as the thinking rules see it."""

    kind: str
    text: str | None = None
    signature: str | None = None


class Message(NamedTuple):
    """One message: its role, whether it holds tool results, and its blocks."""

    role: str
    results: bool
    blocks: Sequence[Shown]


def check_thinking(
    messages: Sequence[Message],
    recorded: Sequence[Shown] | None,
    *,
    prefix: str = "",
    kind: str | None = None,
) -> None:
    """Refuse (:class:`Rejected`) a thinking-enabled request that broke Claude's rules.

    ``messages`` are the request's, in order; ``recorded`` the blocks of the
    turn the request answers, as the model sent them (None: no recorded
    turn).  ``prefix`` and ``kind`` word Bedrock's refusal.
    """
    if not messages or messages[-1].role != "user" or not messages[-1].results:
        return  # no tool loop going on: nothing to carry
    prompt = max((i for i, m in enumerate(messages) if m.role == "user" and not m.results), default=-1)
    opening = next((i for i in range(prompt + 1, len(messages)) if messages[i].role == "assistant"), None)
    if opening is None:
        return
    blocks = messages[opening].blocks
    if blocks and blocks[0].kind not in REASONING:
        path = f"messages.{opening}.content.0"
        raise Rejected(prefix + THINKING_FIRST.format(path=path, found=blocks[0].kind), kind=kind)
    last = len(messages) - 2
    if recorded is None or messages[last].role != "assistant":
        return
    sent = [(number, block) for number, block in enumerate(messages[last].blocks) if block.kind in REASONING]
    kept = [block for block in recorded if block.kind in REASONING]
    for position, (number, block) in enumerate(sent):
        if block.kind != "thinking":
            continue  # a redacted block is opaque: what the API says of a changed one is not known
        original = kept[position] if position < len(kept) else None
        if original != block:
            raise Rejected(prefix + BAD_SIGNATURE.format(path=f"messages.{last}.content.{number}"), kind=kind)
