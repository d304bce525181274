#!/usr/bin/env python3
"""Which sessions upstream's own CLI, `hermes sessions list ...`, lists on the fidelity golden home, in its order.

The terminal CLI calls list_sessions_rich(source, exclude_sources=["tool"] unless --source, limit=20 by default)
WITHOUT order_by_last_active: its rows come newest-STARTED first (a compression chain at its root's start), while
the dashboard and the in-app console (console_engine.py) order by last activity. Archived sessions are left out.

Needs upstream's CLI imports, from Debian: apt-get install python3-dotenv python3-yaml python3-rich
  /usr/bin/python3 scripts/golden/list_cli.py        # HERMES_UPSTREAM defaults to /work/upstream

Reads test/fixtures/upstream/fidelity/home (scripts/golden/fidelity.py) and writes list-cli.json next to it: per
(home, profile, flags), the ids the table lists, top to bottom. Home "tool" is the golden home plus one ended
session with source 'tool' (a third-party tool's, written with upstream's SessionDB), which a bare list hides.
"""
import json
import shutil
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "test" / "fixtures" / "upstream" / "fidelity"
TOOL_SESSION = {"id": "tool-run", "source": "tool", "started_at": 1500020000.0, "text": "a tool's own session"}

CASES = [
    ("golden", "default", []),
    ("golden", "default", ["--limit", "5"]),
    ("golden", "default", ["--limit", "50"]),
    ("golden", "default", ["--source", "cli"]),
    ("golden", "default", ["--source", "discord"]),
    ("golden", "default", ["--source", "telegram"]),
    ("golden", "work", []),
    ("tool", "default", ["--limit", "50"]),
    ("tool", "default", ["--source", "tool"]),
]


def make_home(kind):
    home = Path(tempfile.mkdtemp(prefix="golden-list-"))
    shutil.copytree(FIDELITY / "home", home, dirs_exist_ok=True)
    if kind == "tool":
        sys.path.insert(0, UPSTREAM)
        import hermes_state as hs  # noqa: E402

        db = hs.SessionDB(home / "state.db")
        t = TOOL_SESSION
        db.create_session(t["id"], t["source"])
        db.append_message(t["id"], "user", t["text"], timestamp=t["started_at"] + 5)
        db.end_session(t["id"], "completed")
        db._conn.execute("UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = ?", (t["started_at"], t["started_at"] + 9, t["id"]))
        db._conn.commit()
        db.close()
    return home


def listed(kind, profile, flags):
    home = make_home(kind)
    hermes_home = home if profile == "default" else home / "profiles" / profile
    out = hermes(hermes_home, "sessions", "list", *flags).stdout
    shutil.rmtree(home)
    if out.strip() == "No sessions found.":
        return []
    lines = out.splitlines()
    if not lines[0].startswith(("Title", "Preview")) or not lines[1].startswith("─"):
        raise SystemExit(f"unexpected output for {flags}:\n{out}")
    return [line.split()[-1] for line in lines[2:] if line.strip()]


def main():
    cases = [{"home": k, "profile": p, "flags": f, "ids": listed(k, p, f)} for k, p, f in CASES]
    out = {"upstream_commit": COMMIT, "tool_session": TOOL_SESSION, "cases": cases}
    (FIDELITY / "list-cli.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for c in cases:
        print(c["home"], c["profile"], " ".join(c["flags"]) or "(bare)", c["ids"])


if __name__ == "__main__":
    main()
