"""The README: a landing page of at most 10 KB that says nothing the site does not.

Each of its code blocks is a block of a site page, word for word (with the
same replay server options), so the site's tests run it and hold its output
to what the page says (tests/project/test_docs.py, tests/project/test_docs_examples.py); its
claim about the benchmarks is Home's, which the Benchmarks page's numbers
back; its links lead to files that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.project.test_docs_examples import CHECKS, key
from tests.support.docblocks import DOCS, README, ROOT, Block, blocks, site_blocks

README_BLOCKS = blocks(README)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def on_the_site(block: Block, site: list[Block]) -> Block | None:
    """The site's block that ``block`` is a copy of, if there is one."""
    return next(
        (s for s in site if (s.language, s.code, s.serve) == (block.language, block.code, block.serve)), None
    )


def test_the_readme_fits_on_a_landing_page() -> None:
    assert len(README.read_bytes()) <= 10 * 1024


def test_every_readme_block_is_on_a_site_page() -> None:
    site = site_blocks()
    assert README_BLOCKS
    for block in README_BLOCKS:
        assert on_the_site(block, site) is not None, f"{block.where} is on no site page, word for word"


def test_the_readme_shows_what_sets_streamcalls_apart() -> None:
    """A call out before the stream ends, typed tools run as their calls complete, live arguments: programs whose
    output the site's tests check."""
    site = site_blocks()
    programs = [block for block in README_BLOCKS if block.kind == "program"]
    copied = [on_the_site(block, site) for block in programs]
    assert sorted(key(block) for block in copied if block is not None) == sorted(
        [
            ("getting-started.md", "Against the replay server"),
            ("getting-started.md", "A first tool loop"),
            ("guide/live-arguments.md", "Against the replay server"),
        ]
    )
    assert all(key(block) in CHECKS for block in copied if block is not None)


def test_the_readme_claims_what_home_claims() -> None:
    """The sentence under the chart is Home's (whose numbers the Benchmarks page's table backs)."""
    readme = " ".join(README.read_text().split())
    home = " ".join((DOCS / "index.md").read_text().split())
    claim = re.search(r"CPU time per chunk, .*? \[Benchmarks\]\(", readme)
    assert claim is not None
    assert claim.group(0) in home
    assert "(benchmarks/results/chart.png)" in readme


def test_the_readme_links_lead_to_files() -> None:
    targets = [link.split("#")[0] for link in _LINK.findall(README.read_text()) if "://" not in link]
    assert len(targets) >= 15
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert missing == []
    # Every page of the site is one link away.
    pages = {str(page.relative_to(ROOT)) for page in DOCS.rglob("*.md") if "_ext" not in page.parts}
    assert pages <= set(targets)


def test_a_changed_block_is_not_on_the_site(tmp_path: Path) -> None:
    """The check has teeth: a README block that drifted from its page is found out."""
    (program,) = [block for block in README_BLOCKS if "plan_and_write" in block.code]
    site = site_blocks()
    assert on_the_site(program, site) is not None
    changed = tmp_path / "README.md"
    changed.write_text(
        "<!-- serve: --max-delay 0.002 --max-chunk 50 -->\n```python\n"
        + program.code.replace('end="", flush=True)', 'end="")')
        + "```\n\n```python\n"  # the same code, served without the page's options
        + program.code
        + "```\n"
    )
    drifted, unserved = blocks(changed)
    assert on_the_site(drifted, site) is None
    assert on_the_site(unserved, site) is None
