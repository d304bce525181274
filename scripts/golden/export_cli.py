#!/usr/bin/env python3
"""What upstream's own CLI, `hermes sessions export ...`, writes on the fidelity golden home, and what upstream's
session import (it has no `sessions import` command: the dashboard's POST /api/sessions/import calls
SessionDB.import_sessions with a list of export objects) answers for such exports.

The CLI has its own rules beyond SessionDB.export_all: a JSONL export needs an output (`-` = stdout); a bare export
is every session, most recently used first, with `last_active`; any filter flag (prune's filters) selects ENDED
sessions only, archived included, oldest first, each without `last_active`; `--session-id` takes an exact id or a
unique prefix; `--dry-run` lists and needs a filter; `--only user-prompts` writes one prompt record per line.

Needs upstream's CLI imports, from Debian: apt-get install python3-dotenv python3-yaml python3-rich
  /usr/bin/python3 scripts/golden/export_cli.py        # HERMES_UPSTREAM defaults to /work/upstream

Reads test/fixtures/upstream/fidelity/home (scripts/golden/fidelity.py) and writes export-cli.json next to it:
  sessions every session record any case wrote, whole, without `last_active` (per profile, by id)
  cases    per flag set: exit code, what was printed (a temp output path reads OUT), and the records written (to
           stdout, or what the file held): their ids in order and, where present, each one's last_active; a
           user-prompts export's records whole (`markdown`: the prompts as Markdown, with --format md); `refused`
           where upstream wrote nothing but a refusal
  md       `--format md|qmd` (files in a directory): per flag set what each run printed, the files and manifest
           written (the export time and the hash over it left out) and the sessions the home kept
  redact   `--redact` of a session holding one planted credential per message: what upstream wrote for each
  imports  import_sessions of some of those exports into an empty home and into a copy of the golden home:
           its result and every imported session's parent afterwards
Each run gets its own copy of the home.
"""
import json
import re
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "test" / "fixtures" / "upstream" / "fidelity"

# (profile, flags). "OUT" is replaced with a file path in a fresh temp dir; the file's lines are recorded.
CASES = [
    ("default", ["-"]),
    ("work", ["-"]),
    ("default", []),
    ("default", ["OUT"]),
    ("default", ["--session-id", "big-tools", "-"]),
    ("default", ["--session-id", "big", "-"]),
    ("default", ["--session-id", "chain-", "-"]),
    ("default", ["--session-id", "nope", "-"]),
    ("default", ["--session-id", "chain-3", "OUT"]),
    ("default", ["--source", "cli", "-"]),
    ("default", ["--source", "discord", "-"]),
    ("default", ["--source", "api", "-"]),
    ("default", ["--title", "plan", "-"]),
    ("default", ["--min-messages", "3", "-"]),
    ("default", ["--max-messages", "1", "-"]),
    ("default", ["--model", "gpt", "-"]),
    ("default", ["--end-reason", "compression", "-"]),
    ("default", ["--older-than", "30", "-"]),
    ("default", ["--newer-than", "1w", "-"]),
    ("default", ["--after", "2017-01-01", "--before", "2018-01-01", "-"]),
    ("default", ["--source", "cli", "OUT"]),
    ("default", ["--title", "plan", "--dry-run", "-"]),
    ("default", ["--dry-run", "-"]),
    ("default", ["--older-than", "2w", "--newer-than", "1w", "-"]),
    ("default", ["--only", "user-prompts", "-"]),
    ("default", ["--only", "user-prompts", "--session-id", "mm-many", "-"]),
    ("default", ["--only", "user-prompts", "--source", "discord", "OUT"]),
    ("default", ["--only", "user-prompts", "--format", "md", "--session-id", "mm-many", "-"]),
    ("default", ["--only", "user-prompts", "--format", "md", "--title", "plan", "-"]),
    ("default", ["--only", "user-prompts", "--format", "md", "--source", "telegram", "-"]),
    ("default", ["--only", "user-prompts", "--format", "md", "--source", "discord", "OUT"]),
]

# `--redact`: one user message per sample, in a session "secrets" added to a copy of the home (upstream's SessionDB);
# `secret` is the part that must not come out whole.
SECRETS = [
    {"text": "key sk-proj-AbCdEf0123456789xyz here", "secret": "sk-proj-AbCdEf0123456789xyz"},
    {"text": "token ghp_ABCDEFGHIJ0123456789abcd", "secret": "ghp_ABCDEFGHIJ0123456789abcd"},
    {"text": "slack xoxb-1234567890-abcdefghijkl", "secret": "xoxb-1234567890-abcdefghijkl"},
    {"text": "google AIzaSyA1234567890abcdefghijklmnopqrstuv", "secret": "AIzaSyA1234567890abcdefghijklmnopqrstuv"},
    {"text": "hf hf_abcdefghijklmnop1234", "secret": "hf_abcdefghijklmnop1234"},
    {"text": "groq gsk_groqsecretkey12345", "secret": "gsk_groqsecretkey12345"},
    {"text": "aws AKIAIOSFODNN7EXAMPLE", "secret": "AKIAIOSFODNN7EXAMPLE"},
    {"text": "OPENAI_API_KEY=plainsecretvalue123", "secret": "plainsecretvalue123"},
    {"text": "Authorization: Bearer opaquetokenvalue123456", "secret": "opaquetokenvalue123456"},
    {"text": "x-api-key: customkeyvalue98765", "secret": "customkeyvalue98765"},
    {"text": "bot bot123456789:AAEhBP0av28mX3zKqWtnJ9dYbW5c6vT7rY1", "secret": "AAEhBP0av28mX3zKqWtnJ9dYbW5c6vT7rY1"},
    {"text": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAsecretkeybody\n-----END RSA PRIVATE KEY-----", "secret": "MIIEpAIBAAKCAQEAsecretkeybody"},
    {"text": "db postgres://admin:dbpassw0rd@db.example.com/app", "secret": "dbpassw0rd"},
    {"text": "url https://user:urlpassw0rd@api.example.com/v1", "secret": "urlpassw0rd"},
    {"text": "git https://ghtoken12345678@github.com/org/repo.git", "secret": "ghtoken12345678"},
    {"text": "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk", "secret": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk"},
    {"text": '{"api_key": "jsonsecretvalue42"}', "secret": "jsonsecretvalue42"},
    {"text": "cb https://example.com/cb?access_token=querysecret999&x=1", "secret": "querysecret999"},
    {"text": "password: yamlsecret77", "secret": "yamlsecret77"},
]


def copy_home():
    home = Path(tempfile.mkdtemp(prefix="golden-export-"))
    shutil.copytree(FIDELITY / "home", home, dirs_exist_ok=True)
    return home


def run_case(profile, flags):
    home = copy_home()
    hermes_home = home if profile == "default" else home / "profiles" / profile
    out_dir = Path(tempfile.mkdtemp(prefix="golden-export-out-"))
    out_file = out_dir / "export.jsonl"
    argv = [str(out_file) if f == "OUT" else f for f in flags]
    p = hermes(hermes_home, "sessions", "export", *argv, check=False)
    if p.returncode != 0:
        raise SystemExit(f"upstream failed for {flags}:\n{p.stderr}")
    case = {"profile": profile, "flags": flags, "exit": p.returncode}
    if "md" in flags:  # --only user-prompts --format md: one Markdown text
        written = out_file.read_text(encoding="utf-8") if "OUT" in flags else p.stdout
        case["printed"] = p.stdout.replace(str(out_file), "OUT") if "OUT" in flags else ""
        case["markdown"] = written
        text = ""
    elif "OUT" in flags:
        case["printed"] = p.stdout.replace(str(out_file), "OUT")
        text = out_file.read_text(encoding="utf-8") if out_file.exists() else ""
    elif "-" in flags and p.stdout.lstrip().startswith("{"):
        case["printed"] = ""
        text = p.stdout
    else:
        case["printed"] = p.stdout
        text = ""
    case["records"] = [json.loads(line) for line in text.splitlines() if line.strip()]
    shutil.rmtree(home)
    shutil.rmtree(out_dir)
    return case


# `--format md|qmd`: one file per session in a directory (DIR; none = <home>/session-exports) plus manifest.jsonl.
# "runs" > 1: the same command again in the same home and directory (an existing file, then --force).
MD_CASES = [
    (["--format", "md", "--session-id", "big-tools", "DIR"], 1),
    (["--format", "qmd", "--session-id", "mm-many", "DIR"], 1),
    (["--format", "md", "--session-id", "chain-3", "--lineage", "logical", "DIR"], 1),
    (["--format", "md", "--session-id", "empty-titled", "DIR"], 1),
    (["--format", "md", "--session-id", "chain-", "DIR"], 1),
    (["--format", "md", "--source", "discord", "DIR"], 1),
    (["--format", "md", "--title", "plan", "DIR"], 1),
    (["--format", "md", "--source", "discord", "--dry-run", "DIR"], 1),
    (["--format", "md", "DIR"], 1),
    (["--format", "md", "-"], 1),
    (["--format", "md", "--session-id", "odd"], 1),
    (["--format", "md", "--session-id", "ancient", "DIR"], 2),
    (["--format", "md", "--session-id", "ancient", "--force", "DIR"], 2),
    (["--format", "md", "--session-id", "compact", "--delete-after-verified", "DIR"], 1),
    (["--format", "md", "--session-id", "compact", "--delete-after-verified", "--yes", "DIR"], 1),
]
EXPORTED_AT = re.compile(r'^(exported_at: )".*"$|^(- Exported at: )`.*`$|^(- SHA256 of exported body: )`[0-9a-f]{64}`$', re.M)


def md_case(flags, runs):
    """Each run's printed words (paths as DIR / HOME), the files written (exported_at and SHA256 lines as EXPORTED_AT
    and SHA), manifest.jsonl (path relative, exported_at and sha256 left out) and which sessions the home kept."""
    home = copy_home()
    out_dir = Path(tempfile.mkdtemp(prefix="golden-md-")) / "exports"
    argv = [str(out_dir) if f == "DIR" else f for f in flags]
    target = out_dir if "DIR" in flags else home / "session-exports"
    printed = []
    for _ in range(runs):
        p = hermes(home, "sessions", "export", *argv)
        printed.append(p.stdout.replace(str(out_dir), "DIR").replace(str(home), "HOME"))
    files = {}
    manifest = []
    if target.exists():
        for f in sorted(target.iterdir()):
            text = f.read_text(encoding="utf-8")
            if f.name == "manifest.jsonl":
                for line in text.splitlines():
                    e = json.loads(line)
                    assert isinstance(e.pop("exported_at"), float) and len(e.pop("sha256")) == 64
                    manifest.append({**e, "path": str(Path(e["path"]).relative_to(target))})
            else:
                files[f.name] = EXPORTED_AT.sub(lambda m: (m.group(1) or m.group(2) or m.group(3)) + "X", text)
    con = sqlite3.connect(home / "state.db")
    kept = [r[0] for r in con.execute("SELECT id FROM sessions ORDER BY id")]
    con.close()
    shutil.rmtree(home)
    shutil.rmtree(out_dir.parent)
    out = {"flags": flags, "runs": runs, "printed": printed, "files": files, "manifest": manifest}
    return {**out, "sessions": kept} if "--delete-after-verified" in flags else out


def import_into(sessions, home_db=None):
    """upstream's import_sessions (the dashboard's session import) of `sessions` into an empty home or a copy."""
    sys.path.insert(0, UPSTREAM)
    import hermes_state as hs  # noqa: E402

    d = Path(tempfile.mkdtemp(prefix="golden-import-"))
    if home_db:
        shutil.copy(home_db, d / "state.db")
    db = hs.SessionDB(d / "state.db")
    before = {r[0] for r in db._conn.execute("SELECT id FROM sessions")}
    result = db.import_sessions(sessions)
    parents = {
        sid: parent
        for sid, parent in db._conn.execute("SELECT id, parent_session_id FROM sessions ORDER BY id")
        if sid not in before
    }
    db.close()
    con = sqlite3.connect(d / "state.db")
    fts = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    shutil.rmtree(d)
    return {"result": result, "parents": parents, "integrity_check": fts}


def compact(cases):
    """Each session record once (`sessions`); a case keeps ids, last_active values and user-prompt records."""
    sessions = {}
    out = []
    for c in cases:
        records = c.pop("records")
        if "markdown" in c:
            out.append(c)
            continue
        if "--only" in c["flags"]:
            out.append({**c, "prompts": records})
            continue
        if not records and c["printed"] and not c["printed"].startswith(("Would export", "Exported")):
            out.append({**c, "refused": True})
            continue
        table = sessions.setdefault(c["profile"], {})
        for r in records:
            r = {k: v for k, v in r.items() if k != "last_active"}
            if table.setdefault(r["id"], r) != r:
                raise SystemExit(f"two exports of {r['id']} differ beyond last_active")
        entry = {**c, "ids": [r["id"] for r in records]}
        if any("last_active" in r for r in records):
            entry["last_active"] = [r.get("last_active") for r in records]
        out.append(entry)
    return sessions, out


def redact_case():
    """upstream's `export --redact --session-id secrets -` of the planted samples: each sample's text as written."""
    sys.path.insert(0, UPSTREAM)
    import hermes_state as hs  # noqa: E402

    home = copy_home()
    db = hs.SessionDB(home / "state.db")
    db.create_session("secrets", "cli")
    for i, s in enumerate(SECRETS):
        db.append_message("secrets", "user", s["text"], timestamp=1500030000.0 + i)
    db.end_session("secrets", "cli_close")
    db.close()
    p = hermes(home, "sessions", "export", "--redact", "--session-id", "secrets", "-")
    shutil.rmtree(home)
    (record,) = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    written = [m["content"] for m in record["messages"]]
    return [{**s, "redacted": w, "masked": s["secret"] not in w} for s, w in zip(SECRETS, written)]


def main():
    cases = [run_case(profile, flags) for profile, flags in CASES]
    by_flags = {(c["profile"], " ".join(c["flags"])): c["records"] for c in cases}
    home_db = FIDELITY / "home" / "state.db"
    bad = [dict(r) for r in by_flags[("default", "--source discord -")]]
    bad.append({"id": "broken", "source": "cli", "messages": "not a list"})
    imports = [
        # a filtered export holds children whose parents it left out: detached; the chain keeps its links
        {"export": "--source cli -", "into": "empty", **import_into(by_flags[("default", "--source cli -")])},
        {"export": "--title plan -", "into": "empty", **import_into(by_flags[("default", "--title plan -")])},
        # every id already there: all skipped, nothing changed
        {"export": "-", "into": "golden", **import_into(by_flags[("default", "-")], home_db)},
        # one bad session in the payload: upstream refuses the whole payload
        {"export": "--source discord - (+ a session whose messages are not a list)", "into": "empty", **import_into(bad)},
    ]
    for c in cases:
        print(c["profile"], " ".join(c["flags"]) or "(bare)", len(c["records"]), repr(c["printed"][:80]))
    sessions, cases = compact(cases)
    md = [md_case(flags, runs) for flags, runs in MD_CASES]
    for c in md:
        print("md", " ".join(c["flags"]), c["runs"], [p[:90] for p in c["printed"]], list(c["files"]))
    redact = redact_case()
    for r in redact:
        print("redact", "masked" if r["masked"] else "KEPT  ", r["redacted"][:70].replace("\n", " "))
    out = {"upstream_commit": COMMIT, "sessions": sessions, "cases": cases, "imports": imports, "redact": redact, "md": md}
    (FIDELITY / "export-cli.json").write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n")
    for i in imports:
        print("import", i["export"], i["into"], {k: i["result"][k] for k in ("imported", "skipped", "detached")})


if __name__ == "__main__":
    main()
