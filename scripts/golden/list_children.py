#!/usr/bin/env python3
"""Which child sessions upstream's session list shows (issue #22), on a home written only by upstream's SessionDB.

Every kind of child a home can hold, made with the calls and markers upstream's own code paths use: a /branch
(`_branched_from`), a legacy branch (parent ended 'branched' before the child started, no marker) and a child
started before its parent ended that way, delegate runs (`_delegate_from`, one detached by a prune of its parent,
as upstream's prune orphans a live child), a `tool` child, an unmarked child, compression chains rooted in a root,
a branch, a delegate run and an unmarked child, a delegate-sourced continuation, a delegate-sourced /branch.

  /usr/bin/python3 scripts/golden/list_children.py      # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/list-children/: home/state.db and upstream.json — list_sessions_rich(
order_by_last_active=True) ids with and without include_children, and every row's parent.
"""
import json
import os
import shutil
import time
from pathlib import Path

from golden_setup import temp_dir, upstream_home

COMMIT = os.environ.get("HERMES_UPSTREAM_COMMIT", "9a75ff049b020ab5b24f76892f50f59064811028")
upstream_home()
import hermes_state as hs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "list-children"


def session(db, sid, source="cli", parent=None, marker=None, say=None):
    kw = {}
    if parent:
        kw["parent_session_id"] = parent
    if marker:
        kw["model_config"] = {marker: parent}
    db.create_session(sid, source, **kw)
    db.append_message(sid, "user", say or f"hello from {sid}")
    time.sleep(0.01)  # distinct started_at / message times, so the order is upstream's, not a tie-break


def fill(db):
    session(db, "root-a")
    session(db, "br-marked", parent="root-a", marker="_branched_from")
    session(db, "dg-run", "delegate", parent="root-a", marker="_delegate_from")
    session(db, "tool-kid", "tool", parent="root-a")
    session(db, "plain-kid", parent="root-a")
    # A legacy branch: the parent ended 'branched' before the child started (no marker); a child started earlier
    # under that parent is not one.
    session(db, "root-b")
    session(db, "early-kid", parent="root-b")
    db.end_session("root-b", "branched")
    time.sleep(0.01)
    session(db, "br-legacy", parent="root-b")
    # Compression chains: from a root, from a branch, from a delegate run.
    session(db, "chain-0")
    db.end_session("chain-0", "compression")
    session(db, "chain-1", parent="chain-0")
    session(db, "br-chain-0", parent="root-a", marker="_branched_from")
    db.end_session("br-chain-0", "compression")
    session(db, "br-chain-1", parent="br-chain-0")
    session(db, "dg-chain-0", "delegate", parent="root-a", marker="_delegate_from")
    db.end_session("dg-chain-0", "compression")
    session(db, "dg-chain-1", parent="dg-chain-0")
    # A delegate run left live when its ended parent is pruned: upstream detaches it (parent NULL, marker kept).
    session(db, "doomed")
    db.set_session_title("doomed", "prune me")
    session(db, "dg-detached", "delegate", parent="doomed", marker="_delegate_from")
    db.end_session("doomed", "cli_close")
    assert db.prune_sessions(older_than_days=None, title_like="prune me") == 1
    session(db, "root-c", say="the newest conversation")
    # Chains upstream's edge rule decides: a delegate-sourced continuation without a marker (upstream projects the
    # root to it), and a compressed unmarked child (hidden with its root). A /branch whose source is 'delegate'.
    session(db, "cmp-root")
    db.end_session("cmp-root", "compression")
    session(db, "cmp-dkid", "delegate", parent="cmp-root")
    session(db, "pk-root")
    session(db, "pk-kid", parent="pk-root")
    db.end_session("pk-kid", "compression")
    session(db, "pk-kid-1", parent="pk-kid")
    session(db, "br-src-dg", "delegate", parent="root-c", marker="_branched_from")
    db.set_session_title("dg-chain-1", "zebra title")


def listed(db, include_children):
    rows = db.list_sessions_rich(limit=1000, order_by_last_active=True, include_children=include_children)
    return [r["id"] for r in rows]  # a compression chain's row is its tip


def main():
    tmp = temp_dir("golden-db-")
    db = hs.SessionDB(tmp / "state.db")
    fill(db)
    out = {
        "upstream_commit": COMMIT,
        "list": listed(db, False),
        "list_children": listed(db, True),
        "parents": {r["id"]: r["parent_session_id"] for r in db._conn.execute("SELECT id, parent_session_id FROM sessions")},
    }
    db.close()
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "home").mkdir(parents=True)
    shutil.copy(tmp / "state.db", OUT / "home" / "state.db")
    (OUT / "upstream.json").write_text(json.dumps(out, indent=1) + "\n")
    print("list:", out["list"])
    print("children:", out["list_children"])


if __name__ == "__main__":
    main()
