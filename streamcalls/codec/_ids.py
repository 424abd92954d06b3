"""Call ids a provider would refuse, rewritten for it: deterministic, injective, the same in a call and its result.

=============================  ==========================================  ==========================================
target                         takes                                       a refused id becomes
=============================  ==========================================  ==========================================
Anthropic, Bedrock             ``[a-zA-Z0-9_-]{1,64}``                     the id with each other character as ``_``,
                                                                           cut to 40, ``_`` and 16 hex digits of its
                                                                           SHA-256
Mistral (``"mistral"``)        exactly nine letters and digits             nine base-62 digits of its SHA-256
OpenAI Chat and its servers    at most 40 characters                       its first 23 characters, ``_`` and 16 hex
                                                                           digits of its SHA-256
the others                     any id                                      (kept)
=============================  ==========================================  ==========================================

Ids the target takes stay as they are.  A rewritten id depends only on the
id itself, so a call and its result -- and the same call written twice --
get the same one.  Within one turn the ids stay distinct: should two
rewritten ids meet (or a rewritten id meet one that stays), the later one
in sorted order is hashed again with a counter until it is free.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

__all__ = ("ID_RULES", "id_rewriter")

_BLOCK = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_OTHER = re.compile(r"[^a-zA-Z0-9_-]")
_NINE = re.compile(r"[a-zA-Z0-9]{9}")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _digest(call_id: str, salt: int) -> bytes:
    data = call_id if salt == 0 else f"{call_id}#{salt}"
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).digest()


def _block(call_id: str, salt: int) -> str:
    return (_OTHER.sub("_", call_id)[:40] or "call") + "_" + _digest(call_id, salt).hex()[:16]


def _nine(call_id: str, salt: int) -> str:
    number = int.from_bytes(_digest(call_id, salt)[:8], "big")
    digits = []
    for _ in range(9):
        number, digit = divmod(number, 62)
        digits.append(_DIGITS[digit])
    return "".join(digits)


def _forty(call_id: str, salt: int) -> str:
    return call_id[:23] + "_" + _digest(call_id, salt).hex()[:16]


Rule = tuple[Callable[[str], bool], Callable[[str, int], str]]

_BLOCK_RULE: Rule = (lambda call_id: _BLOCK.fullmatch(call_id) is not None, _block)
_NINE_RULE: Rule = (lambda call_id: _NINE.fullmatch(call_id) is not None, _nine)
_FORTY_RULE: Rule = (lambda call_id: 0 < len(call_id) <= 40, _forty)

ID_RULES: dict[str, Rule] = {
    "anthropic": _BLOCK_RULE,
    "bedrock": _BLOCK_RULE,
    "mistral": _NINE_RULE,
    "openai": _FORTY_RULE,
}
"""What each target takes, and how a refused id is rewritten; keyed by the names :func:`id_rewriter` is asked with."""


def id_rewriter(target: str, ids: Iterable[str]) -> Callable[[str], str]:
    """The id each of ``ids`` gets when written for ``target`` (a key of :data:`ID_RULES`, or any
    other name: ids kept).  Asked for an id not among ``ids``, it rewrites that one alone."""
    rule = ID_RULES.get(target)
    if rule is None:
        return _same
    accepts, rewrite = rule
    known = sorted(set(ids))
    kept = {call_id for call_id in known if accepts(call_id)}
    taken = set(kept)
    mapping: dict[str, str] = {}
    for call_id in known:
        if call_id in kept:
            continue
        salt = 0
        new = rewrite(call_id, salt)
        while new in taken:
            salt += 1
            new = rewrite(call_id, salt)
        taken.add(new)
        mapping[call_id] = new

    def rewritten(call_id: str) -> str:
        found = mapping.get(call_id)
        if found is not None:
            return found
        return call_id if accepts(call_id) else rewrite(call_id, 0)

    return rewritten


def _same(call_id: str) -> str:
    return call_id
