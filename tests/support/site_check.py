"""The documentation site in a real browser: its search, its signatures, code that fits its column.

``make site-check`` runs this, and so does ``make test`` where chromium is installed (``.ci/run``
installs it).  The site is built with ``mkdocs build --strict`` into a temporary directory, served on
127.0.0.1 at an ephemeral port, and read by Debian's headless chromium through its chromedriver
(selenium, given both paths, downloads nothing).  It checks what only a browser shows:

- search: a name typed into the search box lists the pages that hold it, and the first result opens
  one of them; a word no page holds lists nothing (the theme's search runs in a web worker over
  search/search_index.json, so a broken index or script shows only here);
- signatures: every reference signature longer than mkdocstrings' line length is broken over lines
  (the formatter the docs extra brings);
- code widths: at a 1280 px wide window (the theme's widest content column, 688 px: about 80
  characters of code) no code block on any page scrolls sideways.  Programs, commands and
  signatures fit by their own lines; sessions, outputs and listings wrap (docs/stylesheets/extra.css).

One line per check, then a summary; the exit status is 1 if any check failed.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
# As root on a machine with no network: no sandbox, and nothing that phones home at start.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
WINDOW = (1280, 800)
WAIT = 30.0  # seconds for the search worker to answer; it answers in well under one

SEARCHED = "ToolCallCompleted"  # a name the site explains on many pages
EXPECTED = "reference/events/"  # ... and whose own entry is on this page
NOWHERE = "qzxvjkwpfb"  # a word on no page
SIGNATURE_LINE = 60  # mkdocstrings-python's line_length, the default mkdocs.yml keeps
# Blocks a reader types or copies: they keep their lines, so they must fit by them.
KEPT_LINES = ("python", "sh", "console", "toml", "yaml")


class CheckFailed(Exception):
    """A check saw something wrong; the message says what."""


def build(site: Path) -> None:
    """``mkdocs build --strict`` into ``site`` (not --quiet: it hides the warnings --strict counts)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CheckFailed(f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 at an ephemeral port (the search worker fetches its index)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def browser(profile: Path) -> Iterator[WebDriver]:
    """Headless chromium, driven through chromedriver, with a fresh profile."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: WebDriver, what: str, condition: Callable[[WebDriver], Any]) -> Any:
    """What ``condition`` gives once it is truthy, polled for up to WAIT seconds."""
    try:
        return WebDriverWait(driver, WAIT).until(condition)
    except TimeoutException:
        raise CheckFailed(f"no {what} after {WAIT:.0f} s") from None


def search_answer(driver: WebDriver) -> str | None:
    """The result count the theme shows ("3 matching documents"), once the search worker has answered."""
    text: str = driver.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text
    return text if text.endswith(("document", "documents")) else None


def search(driver: WebDriver, base: str, query: str) -> tuple[str, list[str]]:
    """Type ``query`` into the search box of Home; the result count the theme shows, and each result's link."""
    driver.get(base)
    box = driver.find_element(By.CSS_SELECTOR, "input.md-search__input")
    box.click()
    box.send_keys(query)
    meta = wait(driver, f"search answer to {query!r}", search_answer)
    links = driver.find_elements(By.CSS_SELECTOR, ".md-search-result__item > a.md-search-result__link")
    return meta, [link.get_attribute("href") or "" for link in links]


def check_search_finds(driver: WebDriver, base: str, pages: dict[str, str]) -> str:
    meta, links = search(driver, base, SEARCHED)
    if not links:
        raise CheckFailed(f"searching {SEARCHED!r} lists nothing ({meta!r})")
    listed = {link.removeprefix(base).split("#")[0] for link in links}
    holding = {page for page, text in pages.items() if SEARCHED.lower() in text.lower()}
    if stray := listed - holding:
        raise CheckFailed(f"searching {SEARCHED!r} lists pages without it: {sorted(stray)}")
    if EXPECTED not in listed:
        raise CheckFailed(f"searching {SEARCHED!r} does not list {EXPECTED} ({sorted(listed)})")
    driver.find_element(By.CSS_SELECTOR, ".md-search-result__item > a.md-search-result__link").click()
    wait(driver, "page opened from the first result", lambda d: d.current_url.split("#")[0] != base)
    opened = driver.current_url.removeprefix(base).split("#")[0]
    if SEARCHED not in driver.find_element(By.CSS_SELECTOR, "article").text:
        raise CheckFailed(f"the first result, {opened}, does not show {SEARCHED!r}")
    return f'search: "{SEARCHED}" lists {len(listed)} pages, {len(links)} sections; the first opens {opened}'


def check_search_misses(driver: WebDriver, base: str) -> str:
    meta, links = search(driver, base, NOWHERE)
    if links or meta != "No matching documents":
        raise CheckFailed(f"searching {NOWHERE!r}, a word on no page, lists {len(links)} ({meta!r})")
    return f'search: "{NOWHERE}", a word on no page, lists none'


SIGNATURES_JS = """
return Array.from(document.querySelectorAll('.doc-signature pre > code'), code => code.textContent);
"""


def check_signatures(driver: WebDriver, base: str, pages: dict[str, str]) -> str:
    long, flat = 0, []
    for page in sorted(page for page in pages if page.startswith("reference/")):
        driver.get(base + page)
        for text in driver.execute_script(SIGNATURES_JS):
            one_line = " ".join(text.split())
            if len(one_line) > SIGNATURE_LINE:
                long += 1
                if "\n" not in text.strip():
                    flat.append(f"{page}: {one_line[:70]}...")
    if long == 0:
        raise CheckFailed("no reference signature found longer than the line length")
    if flat:
        raise CheckFailed(f"{len(flat)} of {long} long signatures on one line (no formatter?): {flat[:3]}")
    return f"signatures: all {long} longer than {SIGNATURE_LINE} characters broken over lines"


BLOCKS_JS = """
return [document.querySelector('.md-content__inner').clientWidth,
  Array.from(document.querySelectorAll('.md-content pre > code'), code => {
    const block = code.closest('.highlight') || code.parentElement;
    const language = (block.className.match(/language-([\\w-]+)/) || [null, ''])[1];
    const lines = code.textContent.split('\\n');
    const scroll = code.scrollWidth, client = code.clientWidth;
    const wraps = getComputedStyle(code).whiteSpace !== 'pre';
    code.style.whiteSpace = 'pre';  // would its lines fit as they are?
    const unwrapped = code.scrollWidth;
    code.style.whiteSpace = '';
    return {
      language: block.classList.contains('doc-signature') ? 'signature' : language,
      scroll: scroll, client: client, wraps: wraps, unwrapped: unwrapped,
      longest: lines.reduce((a, b) => b.length > a.length ? b : a, ''),
    };
  })];
"""


def check_code_fits(driver: WebDriver, base: str, pages: dict[str, str]) -> str:
    wide, wrapped, count, folded, columns = [], [], 0, 0, set()
    for page in sorted(pages):
        driver.get(base + page)
        column, blocks = driver.execute_script(BLOCKS_JS)
        columns.add(column)
        for block in blocks:
            count += 1
            where = f"{page or 'index'} ({block['language'] or 'no language'}, {len(block['longest'])} chars)"
            if block["scroll"] > block["client"]:
                wide.append(
                    f"{where}: {block['scroll']} px in {block['client']}: {block['longest'].strip()[:60]}"
                )
            if block["wraps"] and block["language"] in (*KEPT_LINES, "signature"):
                wrapped.append(where)
            folded += block["unwrapped"] > block["client"]
    if count == 0:
        raise CheckFailed("no code block found")
    if wrapped:
        raise CheckFailed(f"{len(wrapped)} program blocks are wrapped, not fitted: {wrapped[:3]}")
    if wide:
        raise CheckFailed(f"{len(wide)} of {count} code blocks scroll sideways:\n    " + "\n    ".join(wide))
    width = "/".join(str(c) for c in sorted(columns))
    return (
        f"code fits the {width} px column: {count} blocks on {len(pages)} pages, none scrolls"
        f" ({folded} sessions and outputs wrap)"
    )


def site_pages(site: Path) -> dict[str, str]:
    """Each page of the built site by its path under the site's root (``""`` is Home), and its text."""
    pages = {}
    for path in sorted(site.rglob("index.html")):
        folder = path.parent.relative_to(site).as_posix()
        pages["" if folder == "." else folder + "/"] = re.sub(r"<[^>]+>", " ", path.read_text())
    return pages


def main() -> int:
    for program in (CHROMIUM, CHROMEDRIVER):
        if not os.access(program, os.X_OK):
            print(f"site check: no {program} (apt-get install chromium chromium-driver)")
            return 1
    started = time.monotonic()
    results: list[tuple[bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="site-check-") as temporary:
        site, profile = Path(temporary, "site"), Path(temporary, "profile")
        try:
            build(site)
        except CheckFailed as failure:
            print(f"  FAILED  {failure}")
            return 1
        pages = site_pages(site)
        with serve(site) as base, browser(profile) as driver:
            checks: list[tuple[str, Callable[[], str]]] = [
                ("search finds", lambda: check_search_finds(driver, base, pages)),
                ("search misses", lambda: check_search_misses(driver, base)),
                ("signatures", lambda: check_signatures(driver, base, pages)),
                ("code fits", lambda: check_code_fits(driver, base, pages)),
            ]
            for name, check in checks:
                try:
                    results.append((True, check()))
                except CheckFailed as failure:
                    results.append((False, f"{name}: {failure}"))
                except WebDriverException as error:  # the page lacks what the check looks for
                    first = (error.msg or "no message").splitlines()[0]
                    results.append((False, f"{name}: {type(error).__name__}: {first}"))
    for passed, line in results:
        print(f"  {'passed' if passed else 'FAILED'}  {line}")
    failed = sum(not passed for passed, _ in results)
    verdict = "every check passed" if not failed else f"{failed} FAILED"
    print(f"site check: {verdict} in {time.monotonic() - started:.1f} s (chromium, {WINDOW[0]}x{WINDOW[1]})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
