#!/usr/bin/env python3
"""What upstream's session list shows for a compression chain: whose preview, whose title, whose archived flag, and
which rows include_children adds. Written only by upstream's SessionDB, following the steps of upstream's rotating
compaction (agent/conversation_compression.py, compression.in_place off): end the segment 'compression', create the
continuation with the parent id, number the title with get_next_title_in_lineage; the continuation's transcript is the
compressor's output — on the first compaction the protected head (the opening user message) then the handoff summary
as a user message, on later ones (the head protection decays to 0) the summary first.

  /usr/bin/python3 scripts/golden/list_chains.py      # HERMES_UPSTREAM defaults to /work/upstream

Chains (three segments each unless said): `trip` titled "Trip plan" on its root; `build` untitled; `arch-tip` whose
tip alone is archived (what an older upstream left when it archived only the displayed row); `arch-root` whose root
alone is archived; `solo` a session never compressed.

Writes test/fixtures/upstream/list-chains/: home/state.db and upstream.json — list_sessions_rich(order_by_last_active=
True) rows (id, title, preview, archived, root) for archived exclude/only/include and include_children.
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
OUT = ROOT / "test" / "fixtures" / "upstream" / "list-chains"
SUMMARY = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below."


def say(db, sid, role, text):
    db.append_message(sid, role, text)
    time.sleep(0.005)  # distinct message times: the order is upstream's, not a tie-break


def chain(db, name, opener, title=None, segments=3):
    """A conversation compacted segments-1 times by rotation; returns its segment ids, root first."""
    ids = [f"{name}-0"]
    db.create_session(ids[0], "cli")
    if title:
        db.set_session_title(ids[0], title)
    say(db, ids[0], "user", opener)
    say(db, ids[0], "assistant", f"working on {name}")
    for n in range(1, segments):
        old = ids[-1]
        old_title = db.get_session_title(old)
        db.end_session(old, "compression")
        new = f"{name}-{n}"
        db.create_session(new, "cli", parent_session_id=old)
        if old_title:
            db.set_session_title(new, db.get_next_title_in_lineage(old_title))
        if n == 1:  # the first compaction keeps the opening turn (protect_first_n)
            say(db, new, "user", opener)
        say(db, new, "user", f"{SUMMARY} ({name}, compaction {n})")
        say(db, new, "assistant", f"continuing {name}")
        say(db, new, "user", f"next step {n} of {name}")
        ids.append(new)
    return ids


def fill(db):
    db.create_session("solo", "cli")
    say(db, "solo", "user", "a session never compressed")
    chain(db, "trip", "plan a week in Lisbon", title="Trip plan")
    chain(db, "build", "why does the build fail on arm64")
    tip = chain(db, "arch-tip", "an old archive of the shown row only")[-1]
    db._conn.execute("UPDATE sessions SET archived = 1 WHERE id = ?", (tip,))  # what the older code wrote
    root = chain(db, "arch-root", "a root archived alone")[0]
    db._conn.execute("UPDATE sessions SET archived = 1 WHERE id = ?", (root,))
    db._conn.commit()


def rows(db, **kw):
    out = []
    for r in db.list_sessions_rich(limit=1000, order_by_last_active=True, **kw):
        out.append({"id": r["id"], "title": r["title"], "preview": r["preview"], "archived": r["archived"],
                    "root": r.get("_lineage_root_id", r["id"])})
    return out


def main():
    tmp = temp_dir("golden-db-")
    db = hs.SessionDB(tmp / "state.db")
    fill(db)
    out = {
        "upstream_commit": COMMIT,
        "list": rows(db),
        "archived_only": rows(db, archived_only=True),
        "archived_include": rows(db, include_archived=True),
        "children": rows(db, include_children=True),
        "children_archived_include": rows(db, include_children=True, include_archived=True),
    }
    db._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "home").mkdir(parents=True)
    shutil.copy(tmp / "state.db", OUT / "home" / "state.db")
    (OUT / "upstream.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for k, v in out.items():
        if k != "upstream_commit":
            print(k)
            for r in v:
                print("  ", r)


if __name__ == "__main__":
    main()
