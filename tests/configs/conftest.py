"""Fixtures for the config tests: the real LLaMA-Factory / DeepSpeed parsers, imported once per
session, skipped (with the reason and the install command) only when the packages are absent."""

from __future__ import annotations

import pytest

from .frameworks import INSTALL_HINT, make_frameworks, missing_packages


def pytest_configure(config):
    config.addinivalue_line("markers", "real_frameworks: validates generated files with LLaMA-Factory and DeepSpeed themselves")


@pytest.fixture(scope="session")
def frameworks():
    missing = missing_packages()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed, so generated configs cannot be checked by the real parsers; "
                    f"install with: {INSTALL_HINT}")
    fw, undo = make_frameworks()
    yield fw
    undo()
