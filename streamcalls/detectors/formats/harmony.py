"""OpenAI gpt-oss's Harmony messages (``source="harmony"``).

A model served without a Harmony parser writes its messages into the text::

    <|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>

Each message is a header, ``<|message|>``, its content and an end token
(``<|end|>``, ``<|return|>`` or ``<|call|>``).  The header is read as
openai/harmony reads it (``parse_header_from_string``): the channel is the
word after ``<|channel|>``; of the other words (the role word after
``<|start|>`` dropped), a last ``to=X`` is the recipient, else a last word
is the content type (``json``, ``<|constrain|>json``, ``code``) and the
word before it the recipient -- so the recipient may stand in the role part
or after the channel, and the content type may be absent.

- A message to ``functions.NAME`` is a call of ``NAME`` (the id is
  generated: Harmony has none).  Its content is the arguments' JSON; it
  completes when that JSON closes, or, empty, at its end token (``{}``).
  Other recipients are the server's built-in tools (``browser.search``,
  ``python``): not calls, their content goes where their channel says.
- Otherwise the ``analysis`` channel is reasoning (``ReasoningDelta``) and
  every other channel (``final``, ``commentary`` without a recipient: a
  preamble) is text.  Content streams as it arrives; a message may also end
  where the next header begins, or where the text ends (servers drop the
  stop tokens ``<|return|>`` and ``<|call|>``).
- The generation prompt ends with ``<|start|>assistant``, so a completion's
  first header comes without it: ``<|channel|>...``, or, at the very start
  of the text, `` to=functions.NAME`` then ``<|channel|>`` (a candidate
  until ``<|channel|>`` follows).
- Each part of a header (the role part, the channel part, the content type)
  holds at most 128 of the characters ``[\\w.:=/+-]``, spaces and tabs;
  anything else fails the header, nameless, with what was read as ``raw``,
  and the text resumes there.

Text with no header is text, stray end tokens included.  A server that
strips special tokens (``skip_special_tokens``) leaves
``analysisNeed the weather.assistantcommentary to=functions.get_weather json{...}``:
nothing there tells a header from prose, so it stays text -- have the server
keep special tokens (vLLM and SGLang: ``"skip_special_tokens": false``) or
parse Harmony itself.
"""

from __future__ import annotations

import re
from enum import IntEnum

from ..._call import OPEN, Call
from .._engine.detector import Detector, Hold, Trigger, prefixes
from .._engine.machine import Status, fast
from .._engine.tokens import Tokens, literal_at, skip_blanks
from .._parts.arguments import Ended, arguments_until

__all__ = ("HarmonyDetector",)

START = "<|start|>"
CHANNEL = "<|channel|>"
CONSTRAIN = "<|constrain|>"
MESSAGE = "<|message|>"
END_TOKENS = ("<|end|>", "<|return|>", "<|call|>")
_RECIPIENT = " to="  # a completion's first header may begin here (the prompt wrote "<|start|>assistant")
_FUNCTIONS = "functions."
MAX_PART = 128  # characters in one part of a header

_PART = re.compile(r"[\w.:=/+ \t-]*")
# What ends a message's content: an end token, or the next header.
_BOUNDARY = Tokens((*END_TOKENS, START, CHANNEL))

# The tokens each part of a header may end with.
_ROLE_ENDS: tuple[str, ...] = (CHANNEL, CONSTRAIN, MESSAGE)
_CHANNEL_ENDS: tuple[str, ...] = (CONSTRAIN, MESSAGE)
_CONSTRAIN_ENDS: tuple[str, ...] = (MESSAGE,)
_CANDIDATE_ENDS: tuple[str, ...] = (CHANNEL,)


class HarmonyDetector(Detector):
    class State(IntEnum):
        HEADER = 0
        CONTENT = 1
        BODY_START = 2  # a call's content, before its first non-blank character
        BODY = 3
        AFTER_BODY = 4  # the call's JSON closed; its end token should follow

    name = "harmony"
    triggers = (
        Trigger.literal(START),
        Trigger.literal(CHANNEL),
        Trigger(" ", re.escape(_RECIPIENT[1:]), text_start=True),
    )
    holds = (
        Hold.literal(START),
        Hold.literal(CHANNEL),
        Hold(prefixes(_RECIPIENT), " ", text_start=True),
    )

    __slots__ = (
        "_call",
        "_channel_part",
        "_constrain_part",
        "_drop",
        "_ends",
        "_has_role",
        "_part",
        "_reasoning",
        "_recipient_form",
        "_role_part",
    )

    def begin(self, trigger: str) -> None:
        self.start(_S.HEADER, committed=trigger != _RECIPIENT)
        self._call: Call | None = None
        self._reasoning = False
        self._drop = False  # a call past max_calls: its content is dropped with it
        # The parts of the header, each a list of pieces: the role part (after
        # <|start|>, or the recipient of a completion's first header), the channel part.
        self._role_part: list[str] = []  # (after " to=", the recipient)
        self._channel_part: list[str] | None = None
        self._constrain_part: list[str] | None = None
        self._part: list[str] = self._role_part  # the part being read
        self._ends: tuple[str, ...] = _ROLE_ENDS if self.committed else _CANDIDATE_ENDS
        if trigger == CHANNEL:
            self._channel_part = self._part = []
            self._ends = _CHANNEL_ENDS
        self._has_role = trigger == START
        self._recipient_form = trigger == _RECIPIENT

    # -- the header --------------------------------------------------------------------

    def _header(self, text: str, pos: int) -> int:
        part = self._part
        room = MAX_PART - sum(map(len, part))
        match = _PART.match(text, pos, pos + room + 1)
        assert match is not None
        if match.end() - pos > room:
            return self._bad_header(pos + room, "a Harmony header part is too long")
        part.append(match.group())
        pos = match.end()
        if pos == len(text):
            return pos
        if text[pos] == "<":
            for token in self._ends:
                found = literal_at(text, pos, token)
                if found == 1:
                    return self._header_token(token, pos + len(token))
                if found == 0:
                    return pos  # wait for the rest of the token
        return self._bad_header(pos, "malformed Harmony header")

    def _header_token(self, token: str, pos: int) -> int:
        if token == MESSAGE:
            return self._message(pos)
        if token == CHANNEL:
            self.committed = True
            self._channel_part = self._part = []
            self._ends = _CHANNEL_ENDS
        else:
            self._constrain_part = self._part = []
            self._ends = _CONSTRAIN_ENDS
        return pos

    def _bad_header(self, pos: int, error: str) -> int:
        if self.committed:
            self.markup.fail(error)
            self.status = _Status.DONE
        else:
            self.status = _Status.REJECTED  # " to=..." that no <|channel|> followed: prose
        return pos

    def _message(self, pos: int) -> int:
        """``<|message|>`` ended the header: a call, or text or reasoning."""
        channel = ""
        words = (("to=" if self._recipient_form else "") + "".join(self._role_part)).split()
        if self._has_role and words:
            del words[0]  # the role ("assistant")
        if self._channel_part is not None:
            rest = "".join(self._channel_part).split()
            if rest:
                channel = rest[0]
                words += rest[1:]
        if self._constrain_part is not None:
            words.append(CONSTRAIN + "".join(self._constrain_part).strip())
        recipient = _recipient(words)
        if recipient is not None and recipient.startswith(_FUNCTIONS):
            self._call = self.markup.open_call(None, recipient[len(_FUNCTIONS) :] or None)
            if self._call is None:  # past max_calls: its arguments go with it
                self._drop = True
                self._state = _S.CONTENT
                return pos
            self._state = _S.BODY_START
            return pos
        self._reasoning = channel == "analysis"
        self._state = _S.CONTENT
        self.content("", pos, pos)  # the header frames what follows
        return pos

    # -- text and reasoning --------------------------------------------------------------

    def _content(self, text: str, pos: int) -> int:
        cut, found = _BOUNDARY.find(text, pos)
        if not self._drop:
            self.content(text, pos, cut, reasoning=self._reasoning)
        return cut if found is None else self._boundary(found.group(), cut)

    def _boundary(self, token: str, pos: int) -> int:
        """The message ended at ``token``: an end token is its markup; a header is the next message's."""
        self.status = _Status.DONE
        return pos + len(token) if token in END_TOKENS else pos

    # -- a call's arguments ------------------------------------------------------------------

    def _body_start(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        call = self._call
        assert call is not None
        if text[pos] == "<":
            token = _token_at(text, pos)
            if token == "":
                return pos  # maybe a token: wait
            if token is not None:  # no arguments at all: {}
                self.calls.whole(call, None)
                return self._boundary(token, pos)
        self.markup.arguments(call, pos)
        self._state = _S.BODY
        return pos

    def _body(self, text: str, pos: int) -> int:
        assert self._call is not None
        stop, ended, token = arguments_until(self, self._call, text, pos, tokens=_BOUNDARY)
        if ended is _E.CLOSED:
            self._state = _S.AFTER_BODY
        elif ended is _E.BOUNDARY:  # the message ended before its arguments' JSON did
            return self._boundary(token, stop)
        return stop

    def _after_body(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if text[pos] == "<":
            token = _token_at(text, pos)
            if token == "":
                return pos
            if token is not None:
                return self._boundary(token, pos)
        # Text after the arguments, still in the call's message: it is text.
        self._reasoning = False
        self._state = _S.CONTENT
        return pos

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        state = self._state
        if state is _S.HEADER:
            if self.committed:
                self.markup.fail("the text ended inside a Harmony header")
            return ""
        if state is _S.CONTENT:
            if not self._drop:
                self.content(rest, 0, len(rest), reasoning=self._reasoning)
            return ""
        call = self._call
        if call is not None and call.status == OPEN:
            if state is _S.BODY:
                self.calls.feed(call, rest)
            self.markup.fail("the arguments were cut off (the text ended inside them)", call)
        return ""


_S = fast(HarmonyDetector.State)
_E = fast(Ended)


def _recipient(words: list[str]) -> str | None:
    """The recipient among a header's words, as openai/harmony finds it."""
    if not words:
        return None
    last = words.pop()
    if last.startswith("to="):
        return last[3:]
    if not words:
        return last  # a lone word is the recipient
    recipient = words.pop()  # before the content type
    return recipient[3:] if recipient.startswith("to=") else recipient


def _token_at(text: str, pos: int) -> str | None:
    """The boundary token at ``pos``; "" if the text ends with a prefix of one; None if none."""
    for token in (*END_TOKENS, START, CHANNEL):
        found = literal_at(text, pos, token)
        if found == 1:
            return token
        if found == 0:
            return ""
    return None


_Status = fast(Status)
