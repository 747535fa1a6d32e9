"""Fixtures shared by the offline planner's tests."""

from __future__ import annotations

import pytest

from assistant.agent import Assistant
from assistant.offline.parse import Parser


@pytest.fixture(scope="module")
def assistant(ctx):
    """The offline planner behind the agent loop, one per test module (answers do not depend on earlier ones)."""
    return Assistant(ctx)


@pytest.fixture(scope="module")
def parse(ctx):
    """The reader alone: a question's frame, with no tool called."""
    return Parser(ctx.resolver, ctx.kb.models()).parse
