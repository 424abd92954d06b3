"""The replay server: recorded provider streams served over HTTP, for tests and the demo.

``_app`` is the ASGI application and ``_routes`` the provider endpoints it
answers; ``_recordings`` loads a directory of recordings (the bundled ones
are in ``demo_streams``, package data).  What each provider refuses in a
request -- its own fields, its history, what the turn it answers must come
back with -- is the provider's, in its package (``providers/<name>/*_rules.py``),
and so is its error shape (``providers/<name>/errors.py``); ``_checks``
runs the rules through the provider registry in the providers' order and
``_errors`` sends the refusals.  ``_recorded`` rebuilds a recorded turn's
content as the provider's SDK keeps it (signed thinking, reasoning items),
for those checks and for ``_complete``, which turns a recording into the
complete (non-streamed) response; ``_reframe`` re-cuts it for another
framing; ``_translate`` writes another provider's recording as the
endpoint's provider's stream (its registered writer); ``_serve`` runs the
server on a port and ``_demo`` is
``python -m streamcalls demo``.  Users import what tests need from
:mod:`streamcalls.testing`, which stays where it is.

May import: the async front, the codec and everything below them.  Nothing
in the library imports it but ``streamcalls.testing`` and the CLI.
"""
