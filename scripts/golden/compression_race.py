#!/usr/bin/env python3
"""A compression chain with more than one candidate continuation, written the way upstream's own code writes it, and
what upstream lists for it.

Upstream's get_compression_tip documents the state: a gateway racing its compressor writes the real continuation
row before the parent's `ended_at` (so the child started before its parent ended), and a stale websocket later
creates a sibling under the same parent, which the reaper ends (`ws_orphan_reap`). Upstream then follows, from each
compression-ended parent, ONE child: one itself ended by compression, else a live one, else the rest; ties by the
latest message (else the start), then start, then id. Its list shows each conversation once, projected to that tip;
the other children stay out of the list as any non-branch child does.

Usage: /usr/bin/python3 scripts/golden/compression_race.py   (upstream from $HERMES_UPSTREAM, default /work/upstream)

Writes test/fixtures/upstream/compression-race/state.db (a v21 home written only through SessionDB) and
upstream.json: the upstream commit, list_sessions_rich(order_by_last_active=True) as [id, _lineage_root_id] pairs,
the same with include_children=True (ids), and get_compression_tip for every compression-ended session.
Conversations (each message a moment after the previous write):
  race    race-root ended by compression after race-live was written as its continuation; race-stale written
          after the end and messaged last, then reaped
  fork    fork-root with two children that were each compressed in turn (fork-a → fork-a2, fork-b → fork-b2);
          fork-b holds the later message, so the chain goes through it, however late fork-a2 is written to
  twins   twins-root compressed into two live children: twins-early (started first, messaged last) and twins-late
  plain   a session never compressed
"""
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit

sys.path.insert(0, UPSTREAM)
from hermes_state import SessionDB  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "compression-race"


def main():
    home = Path(tempfile.mkdtemp(prefix="golden-race-"))
    os.environ["HERMES_HOME"] = str(home)
    db = SessionDB(db_path=home / "state.db")

    def say(sid, text, role="user"):
        time.sleep(0.01)
        db.append_message(sid, role, text)

    db.create_session("plain", "cli")
    say("plain", "a plain conversation")

    db.create_session("race-root", "telegram")
    say("race-root", "the first part of the raced conversation")
    db.create_session("race-live", "telegram", parent_session_id="race-root")  # before the parent's end
    time.sleep(0.01)
    db.end_session("race-root", "compression")
    say("race-live", "summary of the first part", role="assistant")
    say("race-live", "the live conversation goes on")
    db.create_session("race-stale", "telegram", parent_session_id="race-root")  # a stale socket's sibling
    say("race-stale", "a message on the stale socket, the latest of all")
    db.end_session("race-stale", "ws_orphan_reap")

    db.create_session("fork-root", "cli")
    say("fork-root", "a conversation both of whose children were compressed")
    db.create_session("fork-a", "cli", parent_session_id="fork-root")
    db.end_session("fork-root", "compression")
    say("fork-a", "the first child")
    db.create_session("fork-a2", "cli", parent_session_id="fork-a")
    db.end_session("fork-a", "compression")
    db.create_session("fork-b", "cli", parent_session_id="fork-root")
    say("fork-b", "the second child, messaged after the first")
    db.create_session("fork-b2", "cli", parent_session_id="fork-b")
    db.end_session("fork-b", "compression")
    say("fork-b2", "where the chosen chain goes on")
    say("fork-a2", "the first child's continuation, messaged last")

    db.create_session("twins-root", "cli")
    say("twins-root", "a conversation compressed twice at once")
    db.create_session("twins-early", "cli", parent_session_id="twins-root")
    time.sleep(0.01)
    db.create_session("twins-late", "cli", parent_session_id="twins-root")
    db.end_session("twins-root", "compression")
    say("twins-late", "the later-started twin")
    say("twins-early", "the earlier-started twin, written to last")
    db.close()

    db = SessionDB(db_path=home / "state.db")
    listed = db.list_sessions_rich(limit=50, order_by_last_active=True)
    children = db.list_sessions_rich(limit=50, include_children=True)
    compressed = [r[0] for r in db._conn.execute("SELECT id FROM sessions WHERE end_reason = 'compression' ORDER BY id")]
    out = {
        "upstream_commit": upstream_commit(),
        "list": [[s["id"], s.get("_lineage_root_id")] for s in listed],
        "list_children": sorted(s["id"] for s in children),
        "tips": {sid: db.get_compression_tip(sid) for sid in compressed},
    }
    db.close()
    OUT.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm"):
        if (home / f"state.db{suffix}").exists():
            raise SystemExit("the home was not checkpointed")
    shutil.copyfile(home / "state.db", OUT / "state.db")
    (OUT / "upstream.json").write_text(json.dumps(out, indent=1) + "\n")
    shutil.rmtree(home)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
