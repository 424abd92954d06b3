"""What the keys of a format's call objects mean: which names the tool, which holds the arguments, which the id.

``{"name", "arguments" | "parameters", "id"}`` by default; Cohere's ``{"tool_name",
"parameters", "tool_call_id"}``; or an object whose one key is the tool's name and whose value
is the arguments (Apertus: ``{"get_weather": {"city": "Paris"}}``).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ("CALL_KEYS", "CallKeys")


class CallKeys(NamedTuple):
    """What the keys of a format's call objects mean."""

    name: frozenset[str] = frozenset({"name"})
    arguments: frozenset[str] = frozenset({"arguments", "parameters"})
    id: frozenset[str] = frozenset({"id"})
    skipped: frozenset[str] = frozenset({"type"})  # known keys whose values do not matter
    name_keyed: bool = False  # {"NAME": {arguments}}: the object's one key is the tool's name

    @classmethod
    def of(
        cls,
        name: tuple[str, ...] = ("name",),
        arguments: tuple[str, ...] = ("arguments", "parameters"),
        id: tuple[str, ...] = ("id",),
        skipped: tuple[str, ...] = ("type",),
    ) -> CallKeys:
        return cls(frozenset(name), frozenset(arguments), frozenset(id), frozenset(skipped))


CALL_KEYS = CallKeys()
