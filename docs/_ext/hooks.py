"""mkdocs hooks: files from outside docs/ that the site shows, and a table made from the code.

The benchmark chart is written by ``make bench`` into benchmarks/results/;
the site serves that very file as ``assets/chart.png`` rather than a copy
that could fall behind it.  The guide's table of what each provider's
target cannot carry is made from the targets' declarations, likewise.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from streamcalls.providers import PROVIDERS
from streamcalls.writing import TARGETS, cannot_carry_table

ROOT = Path(__file__).resolve().parent.parent.parent
FROM_OUTSIDE = {"assets/chart.png": ROOT / "benchmarks" / "results" / "chart.png"}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for uri, path in FROM_OUTSIDE.items():
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


CANNOT_CARRY_MARK = "<!-- the provider targets' cannot-carry table -->"


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The guide's table of what each provider's target cannot carry, made from the targets' own
    declarations (``Target.cannot_carry``) where the page marks its place."""
    if CANNOT_CARRY_MARK not in markdown:
        return markdown
    targets = [TARGETS[name] for name in PROVIDERS if name in TARGETS]
    return markdown.replace(CANNOT_CARRY_MARK, cannot_carry_table(targets))
