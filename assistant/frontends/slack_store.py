"""What the Slack bridge keeps between requests, in a store every replica shares: which events were
accepted or answered (duplicates and retries), the durable queue of accepted questions, and the
threads the bot takes part in. Thread history itself is read back from Slack (``conversations.replies``).

- ``SqliteStore``: a file beside the knowledge-base cache (default); enough for one host (processes
  on one machine share the file; SQLite's locks make every step atomic).
- ``RedisStore``: when ``SIZING_REDIS_URL`` is set; every step is one Lua script, so N replicas behind
  a load balancer share it safely.

The queue is at-least-once: ``take`` leases a question to one worker for ``lease_s`` seconds (renewed
while it works); a worker that dies (kill -9) stops renewing and the question goes to whoever asks
next. Questions of one thread are answered in order, one at a time, so a follow-up never overtakes
the turn it follows."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

EVENT_TTL_S = 3600  # Slack retries within minutes; an answered event id is remembered for an hour
THREAD_TTL_S = 30 * 24 * 3600  # a thread the bot answered in keeps getting replies without a mention for 30 days


@dataclass(frozen=True)
class Job:
    """One accepted question: Slack's event envelope and where it stands."""

    event_id: str
    thread: str  # "channel:thread_ts"
    body: dict[str, Any]
    attempts: int  # how many times it has been taken, this time included
    placeholder_ts: str | None  # the "Working it out…" message an earlier attempt posted


class SlackStore(Protocol):
    def accept(self, event_id: str, thread: str, body: dict[str, Any]) -> bool:
        """Queue an event; False when it was already accepted or answered (a duplicate or a retry)."""

    def take(self, owner: str, lease_s: float) -> Job | None:
        """The oldest question whose thread has nothing in progress, leased to ``owner``; None if none."""

    def renew(self, event_ids: list[str], owner: str, lease_s: float) -> None: ...

    def set_placeholder(self, event_id: str, ts: str) -> None: ...

    def done(self, event_id: str) -> None:
        """Answered (or given up on): off the queue, remembered as answered."""

    def release(self, event_id: str, delay_s: float = 0.0) -> None:
        """Handed back unanswered: a ``take`` (any replica) gets it after ``delay_s`` seconds."""

    def join_thread(self, thread: str) -> None: ...

    def in_thread(self, thread: str) -> bool: ...

    def pending(self) -> int:
        """Questions accepted and not yet answered (queued or in progress)."""

    def close(self) -> None: ...


class SqliteStore:
    """The store in one SQLite file (WAL mode; a write transaction per step)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        with self._db() as db:
            db.executescript("""
                CREATE TABLE IF NOT EXISTS slack_events (
                    event_id TEXT PRIMARY KEY, thread TEXT NOT NULL, body TEXT, state TEXT NOT NULL,
                    accepted_at REAL NOT NULL, owner TEXT, lease_until REAL, attempts INTEGER NOT NULL DEFAULT 0,
                    placeholder_ts TEXT);
                CREATE INDEX IF NOT EXISTS slack_events_queue ON slack_events (state, thread, accepted_at);
                CREATE TABLE IF NOT EXISTS slack_threads (thread TEXT PRIMARY KEY, last REAL NOT NULL);
            """)

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    def _write(self):
        db = self._db()
        return _Transaction(db)

    def accept(self, event_id: str, thread: str, body: dict[str, Any]) -> bool:
        now = time.time()
        with self._write() as db:
            db.execute("DELETE FROM slack_events WHERE state = 'answered' AND accepted_at < ?", (now - EVENT_TTL_S,))
            cur = db.execute("INSERT OR IGNORE INTO slack_events (event_id, thread, body, state, accepted_at) "
                             "VALUES (?, ?, ?, 'queued', ?)", (event_id, thread, json.dumps(body), now))
            return cur.rowcount == 1

    def take(self, owner: str, lease_s: float) -> Job | None:
        now = time.time()
        with self._write() as db:
            row = db.execute("""
                SELECT event_id, thread, body, attempts, placeholder_ts FROM slack_events e
                WHERE state = 'queued' AND (lease_until IS NULL OR lease_until < ?)
                  AND NOT EXISTS (SELECT 1 FROM slack_events o WHERE o.state = 'queued' AND o.thread = e.thread
                                  AND (o.accepted_at < e.accepted_at
                                       OR (o.event_id != e.event_id AND o.lease_until >= ?)))
                ORDER BY accepted_at LIMIT 1""", (now, now)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE slack_events SET owner = ?, lease_until = ?, attempts = attempts + 1 WHERE event_id = ?",
                       (owner, now + lease_s, row[0]))
        return Job(row[0], row[1], json.loads(row[2]), row[3] + 1, row[4])

    def renew(self, event_ids: list[str], owner: str, lease_s: float) -> None:
        with self._write() as db:
            db.executemany("UPDATE slack_events SET lease_until = ? WHERE event_id = ? AND owner = ? AND state = 'queued'",
                           [(time.time() + lease_s, e, owner) for e in event_ids])

    def set_placeholder(self, event_id: str, ts: str) -> None:
        with self._write() as db:
            db.execute("UPDATE slack_events SET placeholder_ts = ? WHERE event_id = ?", (ts, event_id))

    def done(self, event_id: str) -> None:
        with self._write() as db:
            db.execute("UPDATE slack_events SET state = 'answered', body = NULL, owner = NULL, lease_until = NULL, "
                       "accepted_at = ? WHERE event_id = ?", (time.time(), event_id))

    def release(self, event_id: str, delay_s: float = 0.0) -> None:
        # A lease without an owner holds the question back for delay_s; then any take gets it.
        until = time.time() + delay_s if delay_s > 0 else None
        with self._write() as db:
            db.execute("UPDATE slack_events SET owner = NULL, lease_until = ? WHERE event_id = ? AND state = 'queued'",
                       (until, event_id))

    def join_thread(self, thread: str) -> None:
        now = time.time()
        with self._write() as db:
            db.execute("DELETE FROM slack_threads WHERE last < ?", (now - THREAD_TTL_S,))
            db.execute("INSERT OR REPLACE INTO slack_threads (thread, last) VALUES (?, ?)", (thread, now))

    def in_thread(self, thread: str) -> bool:
        row = self._db().execute("SELECT last FROM slack_threads WHERE thread = ?", (thread,)).fetchone()
        return bool(row) and row[0] >= time.time() - THREAD_TTL_S

    def pending(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM slack_events WHERE state = 'queued'").fetchone()[0])

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): one writer at a time across processes."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, *_):
        self.db.execute("ROLLBACK" if kind else "COMMIT")


# Redis layout under a prefix P: P:ev:<id> = "queued" | "answered" (expires); P:job:<id> a hash;
# P:q:<thread> the thread's questions in order; P:ready a sorted set of threads whose first question
# waits (score: when it was accepted); P:leases a sorted set of questions in progress (score: lease end).
_ACCEPT = """
local p, id, thread, body, now, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not redis.call('SET', p..':ev:'..id, 'queued', 'NX', 'EX', ttl) then return 0 end
redis.call('HSET', p..':job:'..id, 'thread', thread, 'body', body, 'accepted_at', now, 'attempts', 0)
if redis.call('RPUSH', p..':q:'..thread, id) == 1 then redis.call('ZADD', p..':ready', now, thread) end
return 1
"""
_TAKE = """
local p, now, until_, owner = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
for _, id in ipairs(redis.call('ZRANGEBYSCORE', p..':leases', '-inf', now)) do
  redis.call('ZREM', p..':leases', id)
  local job = redis.call('HMGET', p..':job:'..id, 'thread', 'accepted_at')
  if job[1] then redis.call('ZADD', p..':ready', job[2], job[1]) end
end
while true do
  local head = redis.call('ZRANGE', p..':ready', 0, 0)
  if #head == 0 then return false end
  local thread = head[1]
  redis.call('ZREM', p..':ready', thread)
  local id = redis.call('LINDEX', p..':q:'..thread, 0)
  if id then
    redis.call('ZADD', p..':leases', until_, id)
    redis.call('HSET', p..':job:'..id, 'owner', owner)
    local attempts = redis.call('HINCRBY', p..':job:'..id, 'attempts', 1)
    local job = redis.call('HMGET', p..':job:'..id, 'body', 'placeholder_ts')
    return {id, thread, job[1], attempts, job[2] or ''}
  end
end
"""
_RENEW = """
local p, until_, owner = ARGV[1], ARGV[2], ARGV[3]
for i = 4, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', p..':leases', id) and redis.call('HGET', p..':job:'..id, 'owner') == owner then
    redis.call('ZADD', p..':leases', until_, id)
  end
end
return 1
"""
_DONE = """
local p, id, ttl = ARGV[1], ARGV[2], ARGV[3]
local thread = redis.call('HGET', p..':job:'..id, 'thread')
redis.call('ZREM', p..':leases', id)
redis.call('DEL', p..':job:'..id)
redis.call('SET', p..':ev:'..id, 'answered', 'EX', ttl)
if thread then
  redis.call('LREM', p..':q:'..thread, 1, id)
  local head = redis.call('LINDEX', p..':q:'..thread, 0)
  if head then redis.call('ZADD', p..':ready', redis.call('HGET', p..':job:'..head, 'accepted_at'), thread) end
end
return 1
"""
_RELEASE = """
local p, id, until_ = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not redis.call('ZSCORE', p..':leases', id) then return 0 end
redis.call('HDEL', p..':job:'..id, 'owner')
if until_ > 0 then redis.call('ZADD', p..':leases', until_, id) return 1 end
redis.call('ZREM', p..':leases', id)
local job = redis.call('HMGET', p..':job:'..id, 'thread', 'accepted_at')
if job[1] then redis.call('ZADD', p..':ready', job[2], job[1]) end
return 1
"""


class RedisStore:
    """The store in Redis (``SIZING_REDIS_URL``), shared by every replica. Keys are under ``prefix``.
    The scripts touch keys they compute, so the store needs one Redis (or one hash slot), not a cluster."""

    def __init__(self, url: str, prefix: str = "sizing:slack"):
        import redis

        self.prefix = prefix
        self.redis = redis.Redis.from_url(url, decode_responses=True, socket_timeout=10, socket_connect_timeout=5,
                                          health_check_interval=30)
        self._accept, self._take, self._renew, self._done, self._release = (
            self.redis.register_script(s) for s in (_ACCEPT, _TAKE, _RENEW, _DONE, _RELEASE))

    def accept(self, event_id: str, thread: str, body: dict[str, Any]) -> bool:
        return bool(self._accept(args=[self.prefix, event_id, thread, json.dumps(body), time.time(), EVENT_TTL_S]))

    def take(self, owner: str, lease_s: float) -> Job | None:
        now = time.time()
        out = self._take(args=[self.prefix, now, now + lease_s, owner])
        if not out:
            return None
        event_id, thread, body, attempts, placeholder = out
        return Job(event_id, thread, json.loads(body), int(attempts), placeholder or None)

    def renew(self, event_ids: list[str], owner: str, lease_s: float) -> None:
        if event_ids:
            self._renew(args=[self.prefix, time.time() + lease_s, owner, *event_ids])

    def set_placeholder(self, event_id: str, ts: str) -> None:
        self.redis.hset(f"{self.prefix}:job:{event_id}", "placeholder_ts", ts)

    def done(self, event_id: str) -> None:
        self._done(args=[self.prefix, event_id, EVENT_TTL_S])

    def release(self, event_id: str, delay_s: float = 0.0) -> None:
        self._release(args=[self.prefix, event_id, time.time() + delay_s if delay_s > 0 else 0])

    def join_thread(self, thread: str) -> None:
        self.redis.set(f"{self.prefix}:thread:{thread}", "1", ex=THREAD_TTL_S)

    def in_thread(self, thread: str) -> bool:
        return bool(self.redis.exists(f"{self.prefix}:thread:{thread}"))

    def pending(self) -> int:
        return sum(1 for _ in self.redis.scan_iter(f"{self.prefix}:job:*", count=1000))

    def close(self) -> None:
        self.redis.close()


def open_store(redis_url: str | None, sqlite_path: Path) -> SlackStore:
    """Redis when a URL is given, else the SQLite file."""
    return RedisStore(redis_url) if redis_url else SqliteStore(sqlite_path)
