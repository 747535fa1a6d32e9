"""Fixtures for the config tests: the real LLaMA-Factory / DeepSpeed parsers, imported once per
session. When they are absent the tests fail with the install command: the fast tier (`make check`)
deselects these tests instead (marker `real_frameworks`, given by path in tests/conftest.py)."""

from __future__ import annotations

import pytest

from .frameworks import INSTALL_HINT, make_frameworks, missing_packages


@pytest.fixture(scope="session")
def frameworks():
    missing = missing_packages()
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed, so generated configs cannot be checked by the real parsers; "
                    f"install with: {INSTALL_HINT}")
    fw, undo = make_frameworks()
    yield fw
    undo()
