"""The Slack bridge's shared store (slack_store.py), the same steps against both back ends: a SQLite
file and a real redis-server started on a free loopback port (tests/frontends/conftest.py)."""

from __future__ import annotations

import time
import uuid

import pytest

from assistant.frontends.slack_store import RedisStore, SqliteStore

LEASE_S = 0.5


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = SqliteStore(tmp_path / "state.sqlite")
    else:
        s = RedisStore(request.getfixturevalue("redis_url"), prefix=f"test:{uuid.uuid4().hex[:8]}")
    yield s
    s.close()


def ev(text: str) -> dict:
    return {"event": {"text": text}}


def test_an_event_is_accepted_once(store):
    assert store.accept("E1", "C:1", ev("q"))
    assert not store.accept("E1", "C:1", ev("q"))  # a duplicate, or a retry of an accepted event
    job = store.take("w1", 30)
    assert (job.event_id, job.thread, job.body, job.attempts, job.placeholder_ts) == ("E1", "C:1", ev("q"), 1, None)
    store.done("E1")
    assert not store.accept("E1", "C:1", ev("q"))  # answered: a later retry is dropped too
    assert store.take("w1", 30) is None and store.pending() == 0


def test_questions_of_one_thread_go_in_order_one_at_a_time(store):
    store.accept("A1", "C:a", ev("a1"))
    store.accept("A2", "C:a", ev("a2"))
    store.accept("B1", "C:b", ev("b1"))
    first, second = store.take("w1", 30), store.take("w2", 30)
    assert (first.event_id, second.event_id) == ("A1", "B1")  # A2 waits for A1
    assert store.take("w3", 30) is None
    store.done("A1")
    assert store.take("w3", 30).event_id == "A2"
    assert store.pending() == 2


def test_a_lease_that_is_not_renewed_runs_out(store):
    store.accept("E1", "C:1", ev("q"))
    assert store.take("dead", LEASE_S).event_id == "E1"
    store.set_placeholder("E1", "123.456")
    assert store.take("alive", 30) is None
    time.sleep(LEASE_S + 0.2)
    job = store.take("alive", 30)
    assert (job.event_id, job.attempts, job.placeholder_ts) == ("E1", 2, "123.456")


def test_a_renewed_lease_holds_and_a_release_hands_back(store):
    store.accept("E1", "C:1", ev("q"))
    store.take("w1", LEASE_S)
    for _ in range(3):
        time.sleep(LEASE_S / 2)
        store.renew(["E1"], "w1", LEASE_S)
        assert store.take("w2", 30) is None
    store.release("E1")
    assert store.take("w2", 30).event_id == "E1"
    store.release("E1", delay_s=LEASE_S)  # handed back for later (Slack refused the answer)
    assert store.take("w3", 30) is None
    time.sleep(LEASE_S + 0.2)
    assert store.take("w3", 30).attempts == 3


def test_threads_the_bot_answered_in(store):
    assert not store.in_thread("C:9")
    store.join_thread("C:9")
    assert store.in_thread("C:9")
