#!/usr/bin/env python3
"""Which files in a home upstream's `hermes sessions delete` and `hermes sessions prune` remove with the sessions.

Upstream's CLI passes `<home>/sessions` to `SessionDB.delete_session` / `prune_sessions`, which then remove, for
every session whose row went (a deleted session's delegate runs included, a detached child not), `<id>.json`,
`<id>.jsonl` and `request_dump_<id>_*.json` there. This builds a home with upstream's own SessionDB (the root home,
a profile home, and a profile whose `sessions` folder is a symlink out of the home), lays files beside the rows,
runs the real CLI's delete and prune steps on it, and records the file tree before and after.

  /usr/bin/python3 scripts/golden/session_files.py      # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/session-files/: tree/home/state.db (and each profile's), and upstream.json —
the files, symlinks and folders to lay out (paths relative to the tree, which holds `home/` and `outside/`),
the steps, and every path left after them.
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "session-files"
DAY = 86400

# The files upstream writes (or a user or an older version left) per session id; `session_<id>.json` is the log
# upstream's agent writes, which its delete does not name.
PER_SESSION = ["{id}.json", "{id}.jsonl", "request_dump_{id}_20260101_120000_000001.json",
               "request_dump_{id}_20260102_120000_000002.json", "session_{id}.json"]

# (home relative to the tree, session id, source, parent, marker, days old, ended)
SESSIONS = [
    ("home", "del-me", "cli", None, None, 1, True),
    ("home", "del-me-dg", "delegate", "del-me", "_delegate_from", 1, True),
    ("home", "del-me-dg2", "delegate", "del-me-dg", "_delegate_from", 1, True),
    ("home", "del-me-br", "cli", "del-me", "_branched_from", 1, True),
    ("home", "a", "cli", None, None, 1, True),
    ("home", "a_b", "cli", None, None, 1, True),
    ("home", "old-1", "cli", None, None, 100, True),
    ("home", "old-1-dg", "delegate", "old-1", "_delegate_from", 1, True),
    ("home", "old-live", "cli", None, None, 100, False),
    ("home", "recent", "cli", None, None, 1, True),
    ("home/profiles/work", "w-1", "cli", None, None, 1, True),
    ("home/profiles/work", "w-2", "cli", None, None, 1, True),
    ("home/profiles/linked", "l-1", "cli", None, None, 1, True),
]
# (the profile a step acts on, the CLI's arguments)
STEPS = [
    ("default", ["sessions", "delete", "del-me", "--yes"]),
    ("default", ["sessions", "delete", "a", "--yes"]),
    ("default", ["sessions", "delete", "nope", "--yes"]),
    ("default", ["sessions", "prune", "--older-than", "30", "--yes"]),
    ("work", ["sessions", "delete", "w-1", "--yes"]),
    ("linked", ["sessions", "delete", "l-1", "--yes"]),
]
HOMES = {"default": "home", "work": "home/profiles/work", "linked": "home/profiles/linked"}


def layout():
    files, links, dirs = {}, {}, []
    for home, sid, *_ in SESSIONS:
        folder = "outside/linked-sessions" if home.endswith("linked") else f"{home}/sessions"
        for name in PER_SESSION:
            files[f"{folder}/{name.format(id=sid)}"] = f"{sid}: {name}\n"
    # Files of no session that was deleted: a missing id's, the gateway's index, another home's look-alike.
    files["home/sessions/nope.json"] = "no such session\n"
    files["home/sessions/request_dump_nope_20260101_120000_000001.json"] = "no such session\n"
    files["home/sessions/sessions.json"] = "{}\n"
    files["home/sessions/del-me.json.bak"] = "a user's copy\n"
    # A deleted session's .jsonl that is a symlink out of the home: the link goes, its target stays.
    del files["home/sessions/del-me.jsonl"]
    files["outside/del-me-target.jsonl"] = "not the home's\n"
    links["home/sessions/del-me.jsonl"] = "../../outside/del-me-target.jsonl"
    # A folder named like a pruned session's file is not a file: it stays.
    del files["home/sessions/old-1.jsonl"]
    dirs.append("home/sessions/old-1.jsonl")
    files["home/sessions/old-1.jsonl/inside.txt"] = "in a folder\n"
    # A profile whose sessions folder lives outside the home.
    links["home/profiles/linked/sessions"] = "../../../outside/linked-sessions"
    return files, links, dirs


def build_dbs(tree):
    sys.path.insert(0, UPSTREAM)
    os.environ["HERMES_HOME"] = str(tree / "home")
    import hermes_state as hs

    now = time.time()
    for home in sorted({h for h, *_ in SESSIONS}):
        (tree / home).mkdir(parents=True, exist_ok=True)
        db = hs.SessionDB(db_path=tree / home / "state.db")
        for h, sid, source, parent, marker, days, ended in SESSIONS:
            if h != home:
                continue
            kw = {"parent_session_id": parent} if parent else {}
            if marker:
                kw["model_config"] = {marker: parent}
            db.create_session(sid, source, **kw)
            db.append_message(sid, "user", f"hello from {sid}")
            if ended:
                db.end_session(sid, "user_exit")
        db.close()
        con = sqlite3.connect(tree / home / "state.db")
        for h, sid, _s, _p, _m, days, _e in SESSIONS:
            if h == home:
                con.execute("UPDATE sessions SET started_at = ? WHERE id = ?", (now - days * DAY, sid))
        con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("PRAGMA journal_mode=DELETE")
        con.close()


def lay(tree, files, links, dirs):
    for d in dirs:
        (tree / d).mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    for rel, target in links.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, tree / rel)


def paths(tree):
    """Every path in a home's sessions folder or outside the homes (what a delete may touch; upstream's CLI writes its
    own logs/ too), a folder marked with a trailing '/', a link with ' -> '."""
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(tree).as_posix()
            if not (rel.startswith("outside/") or "sessions/" in rel):
                continue
            if p.is_symlink():
                out.append(f"{rel} -> {os.readlink(p)}")
            elif p.is_dir():
                out.append(rel + "/")
            else:
                out.append(rel)
    return sorted(out)


def main():
    files, links, dirs = layout()
    shutil.rmtree(OUT, ignore_errors=True)
    build_dbs(OUT / "tree")
    work = Path(tempfile.mkdtemp(prefix="golden-session-files-"))
    shutil.copytree(OUT / "tree", work, dirs_exist_ok=True)
    lay(work, files, links, dirs)
    before = paths(work)
    outputs = []
    for profile, args in STEPS:
        r = hermes(work / HOMES[profile], *args)
        outputs.append(r.stdout.strip())
    after = paths(work)
    shutil.rmtree(work)
    (OUT / "upstream.json").write_text(json.dumps({
        "upstream_commit": COMMIT,
        "files": files,
        "links": links,
        "dirs": dirs,
        "homes": HOMES,
        "steps": [{"profile": p, "args": a, "stdout": o} for (p, a), o in zip(STEPS, outputs)],
        "before": before,
        "after": after,
    }, indent=1) + "\n")


if __name__ == "__main__":
    main()
