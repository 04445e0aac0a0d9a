#!/usr/bin/env python3
"""The floor of a turn's I/O on this machine: what the kernel charges a server that
does nothing but a turn's socket reads and writes and (with --store) its durable
append, at the load of BENCHMARKS.md (issue 14).

    python3 scripts/io-floor.py [--matches 1000] [--think-ms 1000] [--store]

Two processes on 127.0.0.1, plain TCP, no WebSocket, no JSON, no rules:
- the server accepts 4 connections per match. For each frame it reads (a 120-byte
  submit) it writes 2,300 bytes to each of the match's 4 sockets, one `send` each:
  about a compact `turn_resolved` and `turn_started` of `proto/examples/server`
  (1,957 + 269 bytes) and the submitter's `ack` (27). That is the Rust server's
  1 read and 4 writes per turn, on epoll.
- with --store, the turn is shown only after its row is committed: turns read within
  2 ms form one transaction (`BEGIN IMMEDIATE` … `COMMIT`) appending rows of the
  `turns` table's shape and size (653 bytes; WAL, `synchronous = FULL`, foreign keys
  on) to an SQLite file in a temporary directory, as the turn log's group commit does.
- the client sends each match's submit 1 s (`--think-ms`) after the match's last
  write arrived, as `ludo-load` does.

Prints the server's user and system CPU-s per 1,000 turns over a 20 s window after
8 s of warm-up. Its user time is Python's; its system time is the kernel's work for
the same syscalls, which is the part to compare with the `system` figure `ludo-load`
prints for the Rust server.
"""
import argparse
import heapq
import os
import random
import re
import resource
import selectors
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

FRAME = 2300
SUBMIT = 120
WINDOW_MS = 2
WARMUP_S = 8
MEASURE_S = 20

# The `turns` table as the server's SQLite migrations leave it (read from the migration
# that last rebuilt it, so the two cannot drift apart).
MIGRATION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "migrations",
                         "sqlite", "0008_turns_checks_without_in.sql")
TURNS = re.search(r"CREATE TABLE turns_new \(.*?\n\);", open(MIGRATION).read(),
                  re.S).group(0).replace("turns_new", "turns")
INSERT = ("INSERT INTO turns (match_id, turn_number, seat, dice, kind, plan, events, seq, "
          "clock_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (match_id, turn_number) DO NOTHING")


def open_store(path, matches):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("CREATE TABLE matches (id BLOB PRIMARY KEY NOT NULL, rest TEXT NOT NULL)")
    db.execute(TURNS)
    ids = [uuid.uuid4().bytes for _ in range(matches)]
    db.executemany("INSERT INTO matches VALUES (?, ?)", [(i, "x" * 300) for i in ids])
    return db, ids


def cpu_ticks():
    fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])  # utime, stime


def watch(socks):
    """Sockets without Nagle's delay, non-blocking, on one epoll selector; each
    registered with its match number (four sockets per match)."""
    sel = selectors.EpollSelector()
    for i, s in enumerate(socks):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i // 4)
    return sel


def serve(listener, matches, store_path):
    conns = [listener.accept()[0] for _ in range(matches * 4)]
    sel = watch(conns)
    frame = b"r" * FRAME
    db, ids = open_store(store_path, matches) if store_path else (None, None)
    turn_no = [0] * matches
    pending, first = [], None
    events = "e" * 516

    def show(m):
        for c in conns[m * 4:m * 4 + 4]:
            c.send(frame)

    def commit():
        db.execute("BEGIN IMMEDIATE")
        for m in pending:
            turn_no[m] += 1
            db.execute(INSERT, (ids[m], turn_no[m], "red", "[3,5]", "plan",
                                '{"moves":[[0,3],[1,5]]}', events, turn_no[m] * 2, 123456))
        db.execute("COMMIT")
        for m in pending:
            show(m)
        pending.clear()

    turns, start, mark = 0, time.monotonic(), None
    while True:
        timeout = None if first is None else max(0.0, first + WINDOW_MS / 1000 - time.monotonic())
        for key, _ in sel.select(timeout):
            try:
                data = key.fileobj.recv(512)
            except BlockingIOError:
                continue
            if not data:
                return None
            turns += 1
            if db is None:
                show(key.data)
            else:
                first = time.monotonic() if first is None else first
                pending.append(key.data)
        now = time.monotonic()
        if first is not None and now >= first + WINDOW_MS / 1000:
            commit()
            first = None
        if mark is None and now - start >= WARMUP_S:
            mark = (now, turns, cpu_ticks())
        elif mark is not None and now - mark[0] >= MEASURE_S:
            (t0, n0, (u0, s0)), (u1, s1) = mark, cpu_ticks()
            n, hz = turns - n0, os.sysconf("SC_CLK_TCK")
            return (n, now - t0, (u1 - u0) / hz / n * 1000, (s1 - s0) / hz / n * 1000)


def play(port, matches, think_ms, seconds):
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(matches * 4)]
    sel = watch(socks)
    received = [0] * matches
    due = [(time.monotonic() + random.random() * think_ms / 1000, m) for m in range(matches)]
    heapq.heapify(due)
    submit = b"s" * SUBMIT
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        timeout = max(0.0, due[0][0] - time.monotonic()) if due else 1.0
        for key, _ in sel.select(timeout):
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            m = key.data
            received[m] += len(data)
            if received[m] >= 4 * FRAME:
                received[m] -= 4 * FRAME
                heapq.heappush(due, (time.monotonic() + think_ms / 1000, m))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, m = heapq.heappop(due)
            socks[m * 4 + random.randrange(4)].send(submit)
    for s in socks:
        s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--think-ms", type=int, default=1000)
    ap.add_argument("--store", action="store_true", help="commit each turn to SQLite first")
    ap.add_argument("--client-port", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    # Four sockets per match on each side: lift the soft descriptor limit to the hard one.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if a.client_port:
        play(a.client_port, a.matches, a.think_ms, WARMUP_S + MEASURE_S + 6)
        return
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4096)
    port = listener.getsockname()[1]
    client = subprocess.Popen([sys.executable, __file__, "--matches", str(a.matches),
                               "--think-ms", str(a.think_ms), "--client-port", str(port)])
    with tempfile.TemporaryDirectory() as tmp:
        result = serve(listener, a.matches, os.path.join(tmp, "turns.db") if a.store else None)
    client.wait(timeout=60)
    if result is None:
        sys.exit("the client left before the window ended")
    n, secs, user, system = result
    print(f"io-floor: {a.matches} matches, think {a.think_ms} ms, store "
          f"{'SQLite' if a.store else 'none'}: {n} turns in {secs:.1f} s ({n / secs:.0f}/s); "
          f"server user {user:.4f}, system {system:.4f} CPU-s per 1,000 turns")


if __name__ == "__main__":
    main()
