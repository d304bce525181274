#!/usr/bin/env python3
"""What upstream's own `hermes sessions stats|rename|delete|prune|archive` print, and what they leave in state.db, on homes upstream's code wrote: the fidelity home (scripts/golden/fidelity.py), the v21 two-profile home
and the v31 home. Each home is copied first; renames run in order on one copy (a later case sees the earlier ones).

  /usr/bin/python3 scripts/golden/sessions_verbs.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/sessions-verbs/verbs.json: per home, the stats lines (the database size line left out:
the size is the file's, not the data's), each rename's exit code and printed text, and every session's title after;
for the fidelity home also each `--yes` delete, prune and archive (each on a fresh copy): what it printed and the
session ids left (and, for archive, those archived); and for the v31 home (one session given a git repo root first)
the ids `hermes sessions list --workspace NEEDLE [--limit N]` lists. And `hermes sessions stats` on a home with no
state.db, every line of it (the size line included: upstream's SessionDB creates the file it then measures, empty),
and on a home whose state.db is exactly 64 pages of 4 KiB (0.25 MB: Python's format rounds that tie to the even digit).
"""
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "test" / "fixtures" / "upstream"
HOMES = {
    "fidelity": FIX / "fidelity" / "home",
    "v21-two-profiles": FIX / "v21-two-profiles",
    "nous-v31": FIX / "nous-v31",
}
# (home, argv after `sessions rename`)
RENAMES = {
    "fidelity": [
        ["anc", "my  new", "title"],  # a unique prefix; the words joined by one space each, inner spaces kept
        ["chain", "x"],  # an ambiguous prefix
        ["nosuch", "x"],
        ["big-tools", "Plan 東京 🚀 #2"],  # a title another session holds
        ["chain-3", "Plan 東京 🚀"],  # a compression ancestor's title moves to its descendant
        ["compact", "  "],  # blank: the title is cleared
    ],
}


# argv after `sessions`, each with --yes on a fresh copy of the fidelity home
CHANGES = [
    ["delete", "chain-1"],  # a session with a compression child: the child is detached
    ["delete", "ancient"],
    ["delete", "chain"],  # ambiguous prefix
    ["prune", "--source", "cli"],
    ["prune", "--source", "nosuch"],
    ["archive", "--source", "cli"],
]


# argv after `sessions list`, on the v31 home
WORKSPACES = [
    ["--workspace", "tax"],
    ["--workspace", "HOUSE"],
    ["--workspace", "ledger"],  # the git repo root wins over the cwd
    ["--workspace", "ada"],
    ["--workspace", "ada", "--limit", "2"],  # the filter applies to the listed rows, after the limit
    ["--workspace", "nowhere"],
]
REPO_ROOT = ("20251203_093000_c0ffef", "/srv/repos/Ledger")


def ids(db, where="1"):
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute(f"SELECT id FROM sessions WHERE {where} ORDER BY id")]
    finally:
        con.close()


def titles(db):
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT id, title FROM sessions ORDER BY id").fetchall())
    finally:
        con.close()


def main():
    out = {"upstream_commit": upstream_commit(), "homes": {}}
    for name, src in HOMES.items():
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            shutil.copytree(src, home, ignore=shutil.ignore_patterns("README.md"))
            stats = hermes(home, "sessions", "stats")
            rec = {
                "stats": [l for l in stats.stdout.splitlines() if not l.startswith("Database size:")],
                "stats_code": stats.returncode,
                "renames": [],
            }
            for argv in RENAMES.get(name, []):
                r = hermes(home, "sessions", "rename", *argv, check=False)
                rec["renames"].append({"argv": argv, "code": r.returncode, "printed": r.stdout})
            if name in RENAMES:
                rec["titles"] = titles(home / "state.db")
            out["homes"][name] = rec
    out["changes"] = []
    for argv in CHANGES:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            shutil.copytree(HOMES["fidelity"], home)
            r = hermes(home, "sessions", *argv, "--yes", check=False)
            out["changes"].append(
                {
                    "argv": argv,
                    "code": r.returncode,
                    "printed": r.stdout,
                    "ids": ids(home / "state.db"),
                    "archived": ids(home / "state.db", "archived = 1"),
                }
            )
    out["workspaces"] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(HOMES["nous-v31"], home)
        con = sqlite3.connect(home / "state.db")
        con.execute("UPDATE sessions SET git_repo_root = ? WHERE id = ?", (REPO_ROOT[1], REPO_ROOT[0]))
        con.commit()
        con.close()
        for argv in WORKSPACES:
            r = hermes(home, "sessions", "list", *argv, check=False)
            listed = [l.split()[-1] for l in r.stdout.splitlines()[2:] if l.strip()]
            out["workspaces"].append({"argv": argv, "code": r.returncode, "printed": r.stdout, "ids": listed})
    out["repo_root"] = list(REPO_ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        r = hermes(Path(tmp), "sessions", "stats", check=False)
        out["stats_without_db"] = {"code": r.returncode, "printed": r.stdout}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        hermes(home, "sessions", "stats")  # upstream's SessionDB makes the file; a filler table grows it to 64 pages
        con = sqlite3.connect(home / "state.db")
        con.execute("CREATE TABLE filler (x BLOB)")
        while con.execute("PRAGMA page_count").fetchone()[0] < 64:
            con.execute("INSERT INTO filler VALUES (zeroblob(100))")
            con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        size = (home / "state.db").stat().st_size
        r = hermes(home, "sessions", "stats")
        out["stats_quarter_mb"] = {"bytes": size, "printed": r.stdout}
    dest = FIX / "sessions-verbs" / "verbs.json"
    dest.write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
