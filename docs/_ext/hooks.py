"""mkdocs hooks: files from outside docs/ that the site shows.

The benchmark chart is written by ``make bench`` into benchmarks/results/;
the site serves that very file as ``assets/chart.png`` rather than a copy
that could fall behind it.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent.parent
FROM_OUTSIDE = {"assets/chart.png": ROOT / "benchmarks" / "results" / "chart.png"}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for uri, path in FROM_OUTSIDE.items():
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
