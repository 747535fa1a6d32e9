"""A count pointed at ("在这个卡数上", "同样的卡数") is where the time is asked, not a sizing asked before it (fresh round 19
c7-05#2: "按每卡每秒 900 token，2e8 token 在这个卡数上训完得几个小时" led with a capacity verdict, the time last)."""

from __future__ import annotations

import pytest

from assistant.offline.asked import sizing_asked_before_time


@pytest.mark.parametrize("question,before", [
    ("按每卡每秒 900 token，2e8 token 在这个卡数上训完得几个小时", False),
    ("同样的卡数训完要多久", False),
    ("要几张卡，训完要多久", True),  # a count asked, then the time
    ("which zero stage, and how long will it take?", True),
])
def test_sizing_asked_before_time(question, before):
    assert sizing_asked_before_time(question) is before
