"""The command line: ``python -m streamcalls`` (and the ``streamcalls`` script).

``_main`` builds the argument parser and runs a command: ``replay`` (a
recorded stream's events, as the parser gives them), ``serve`` (the replay
server), ``demo`` and ``bench``.  ``_bench`` is the bench command's
measurement, with ``_timing`` (how a run is timed) and ``_floors`` (the
framing-only floor each run is held against).

May import: everything -- it is the top of the stack.  Nothing in the
library imports it.
"""
