"""Every async test runs on asyncio and on trio (anyio's pytest plugin).

Hypothesis runs derandomized by default (``make test``, CI): the gate gives the
same verdict for the same code.  ``make fuzz`` sets
``STREAMCALLS_HYPOTHESIS=explore`` to draw new examples on every run.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("gate", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("STREAMCALLS_HYPOTHESIS", "gate"))


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
