#!/usr/bin/env python3
"""Replays upstream Hermes's recorded SQL (test/fixtures/upstream/live-writer/trace.json) onto a live home.

Stdlib only (the system Python's own sqlite3 module, a different SQLite build than the host's better-sqlite3, as
upstream's would be), so the cross-process test runs on a clean machine without the upstream checkout.

The trace holds, per scenario and step, every call upstream's SessionDB made on its connection(s) to the home, in
order: connect (with upstream's keyword arguments), execute / executemany / executescript (SQL text and parameters),
commit, rollback, close. Replaying a step makes the same calls with the same values against another path.

As a program (what test/upstream-live-writer.test.ts runs):
  python3 replay_trace.py <trace.json>
reads request lines {"path", "scenario", "step"} on stdin and answers each with {"calls": n} once that step's calls
ran (every write committed), or {"error": "..."}.

scripts/golden/live_writer.py imports this module to prove, right after recording, that a replay rebuilds upstream's
database table for table.
"""
import json
import sqlite3
import sys


class Replayer:
    """One set of connections per home path, kept open across steps as upstream's SessionDB keeps its own."""

    def __init__(self):
        self.conns = {}

    def apply(self, path, calls):
        for call in calls:
            self._one(path, call)
        return len(calls)

    def _one(self, path, call):
        key = (path, call["conn"])
        op = call["op"]
        if op == "connect":
            self.conns[key] = sqlite3.connect(path, **call["kwargs"])
            return
        conn = self.conns[key]
        try:
            if op == "execute":
                conn.execute(call["sql"], _params(call["params"])).fetchall()
            elif op == "executemany":
                conn.executemany(call["sql"], [_params(p) for p in call["params"]])
            elif op == "executescript":
                conn.executescript(call["sql"])
            elif op == "commit":
                conn.commit()
            elif op == "rollback":
                conn.rollback()
            elif op == "close":
                conn.close()
                del self.conns[key]
            else:
                raise ValueError("unknown recorded call " + op)
        except sqlite3.Error as exc:
            # upstream's code probes and catches some errors (an FTS5/trigram probe, a missing table): the replay must
            # fail exactly where the recording failed, nowhere else
            if call.get("error") != type(exc).__name__:
                raise RuntimeError("replay diverged at %s %r: %s" % (op, call.get("sql", ""), exc)) from exc
            return
        if call.get("error"):
            raise RuntimeError("recorded call failed with %s but the replay succeeded: %r" % (call["error"], call))


def _params(p):
    return p if isinstance(p, dict) else tuple(p)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        scenarios = json.load(f)["scenarios"]
    replayer = Replayer()
    for line in sys.stdin:
        req = json.loads(line)
        try:
            steps = scenarios[req["scenario"]]["steps"]
            answer = {"calls": replayer.apply(req["path"], steps[req["step"]]["calls"])}
        except Exception as exc:  # answer instead of dying, so the test reports what went wrong
            answer = {"error": "%s: %s" % (type(exc).__name__, exc)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
