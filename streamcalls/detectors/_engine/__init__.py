"""The detector engine: what every text format runs on.

- :mod:`.machine`: the one state machine (an ``IntEnum`` of states, one step each, one loop) and
  the one ``Status`` vocabulary;
- :mod:`.detector`: what a detector is (its triggers, its holds, its tier, its region's life);
- :mod:`.markup`: the record of what a detector consumed, where rule 8 (conservation) is kept;
- :mod:`.triggers`: the one search for every enabled detector's triggers, at C speed;
- :mod:`.channel`: the text channel, where text meets the detectors;
- :mod:`.shared`: one opener shared by several formats;
- :mod:`.tools`: what the detectors know of the tools (names, parameter types).

May import: the core's leaf modules.  Never the parts or the formats.
"""
