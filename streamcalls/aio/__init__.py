"""The async front: the only layer that touches anyio, httpx or an SDK's shape.

:func:`~streamcalls.aparse` is a loop over ``parser.feed(chunk)`` with the
source's ``aclose()`` in a ``finally``: the one loop of every async front
(``_drive``), which also keeps their fault contract and their time limits;
:func:`~streamcalls.from_httpx` checks a response's status and content type
first (``_http``), the SDK fronts turn an openai or anthropic stream's objects
into events, and
:func:`~streamcalls.run_tools` (with ``_invoke``) runs each call the moment it
completes.  ``import streamcalls`` imports none of these modules: the public
names load them on first use, so that the core stays sans-IO.

May import: the core, framing, providers, detectors and the codec.  Nothing
below this layer imports it.
"""
