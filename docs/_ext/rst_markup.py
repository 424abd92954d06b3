"""A griffe extension: the docstrings' reStructuredText markup, as Markdown the site renders.

The source's docstrings are written in the house style (Sphinx roles, ``::``
literal blocks, ``:param:`` fields: ``help()`` and IDEs read them as they are).
mkdocstrings parses the fields itself (``docstring_style: sphinx``); this
extension rewrites the rest before it renders them:

- a role, ``:class:`~streamcalls.ParseError``` or ``:meth:`feed```, becomes a
  cross-reference, ``[`ParseError`][streamcalls.ParseError]``, resolved in the
  docstring's own scope and then among the public names.  A reference the
  site cannot resolve is a warning, which ``mkdocs build --strict`` makes an
  error: the docs cannot point at nothing;
- a literal block (a paragraph ending in ``::``, then an indented block)
  becomes a fenced code block, ``pycon`` when it starts with ``>>>``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

# :role:`target`, :role:`~target` (shown by its last name) and :role:`text <target>`.
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj):`(~?)([^`<]+?)(?:\s*<([^>`]+)>)?`")
# Where a name no scope resolves is looked for: the public namespaces.
PUBLIC = ("streamcalls", "streamcalls.codec", "streamcalls.testing")


class RstMarkup(griffe.Extension):
    """Rewrites every docstring once the package is loaded (roles resolve against the whole tree)."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        text = literal_blocks(obj.docstring.value)
        obj.docstring.value = ROLE.sub(lambda match: reference(match, obj, loader), text)


def reference(match: re.Match[str], obj: griffe.Object, loader: griffe.GriffeLoader) -> str:
    tilde, written, explicit = match.group(1), match.group(2).strip(), match.group(3)
    target = (explicit or written).strip().lstrip("~")
    if explicit:
        label = written
    elif tilde:
        label = target.rsplit(".", 1)[-1]
    else:
        label = target
    return f"[`{label}`][{resolve(target, obj, loader)}]"


def resolve(target: str, obj: griffe.Object, loader: griffe.GriffeLoader) -> str:
    """The full path of ``target`` as written in ``obj``'s docstring (unchanged when nothing matches)."""
    if target.startswith("streamcalls."):
        return target
    scope = obj if isinstance(obj, griffe.Class | griffe.Module) else obj.parent
    head, _, rest = target.partition(".")
    while scope is not None:
        if head in scope.members:
            return f"{scope.members[head].path}{'.' + rest if rest else ''}"
        try:
            return scope.resolve(target)
        except griffe.NameResolutionError:
            scope = scope.parent
    for namespace in PUBLIC:
        try:
            loader.modules_collection.get_member(f"{namespace}.{target}")
        except KeyError:
            continue
        return f"{namespace}.{target}"
    return target


def literal_blocks(text: str) -> str:
    """Each ``::`` literal block as a fenced code block."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.rstrip().endswith("::"):
            out.append(line)
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        intro = line.rstrip()[:-2].rstrip()
        if intro:
            out.append(intro + ":" if line.rstrip()[-3:-2] != " " else intro)
        i += 1
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            block.append(lines[i])
            i += 1
        while block and not block[-1].strip():
            block.pop()
        body = [b for b in block if b.strip()]
        margin = min((len(b) - len(b.lstrip()) for b in body), default=0)
        code = [b[margin:] for b in block]
        while code and not code[0].strip():
            code.pop(0)
        language = "pycon" if code and code[0].startswith(">>>") else "python"
        pad = " " * indent
        out += ["", f"{pad}```{language}", *(pad + c if c else "" for c in code), f"{pad}```", ""]
    return "\n".join(out)
