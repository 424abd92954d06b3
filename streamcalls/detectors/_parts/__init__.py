"""The detectors' shared parts: what formats are built from.

- :mod:`.arguments`: a call's JSON arguments fed to the call assembler (up to a token);
- :mod:`.callobject`, :mod:`.callkeys`, :mod:`.callrun`: call objects (``{"name", "arguments"}`` and the keys a
  format uses instead) and runs of them (a JSON array, ``;``-joined, one per line);
- :mod:`.block`: a block of markup whose body is one call object, up to a closing delimiter;
- :mod:`.jsoncalls`: JSON calls between tokens (an opener, a body, a closer), declared;
- :mod:`.values`, :mod:`.xmlparams`, :mod:`.tagged`, :mod:`.callblock`: the typed XML
  parameter rules and the tag formats built on them;
- :mod:`.pyliteral`, :mod:`.pyjson`, :mod:`.pytokens`, :mod:`.pycalls`: Python-literal
  arguments, read as they arrive and written as JSON, and Python call lists;
- :mod:`.bracedargs`, :mod:`.bracedcalls`: Gemma's ``call:NAME{key:value}`` notation, read as it
  arrives and written as JSON, and the calls written in it between tokens;
- :mod:`.reasoning`: reasoning written in the text between tags.

May import: the core's leaf modules and the engine.  Never the formats.
"""
