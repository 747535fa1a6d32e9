"""Fixtures shared by the offline planner's tests."""

from __future__ import annotations

import pytest

from assistant.agent import Assistant


@pytest.fixture(scope="module")
def assistant(ctx):
    """The offline planner behind the agent loop, one per test module (answers do not depend on earlier ones)."""
    return Assistant(ctx)
