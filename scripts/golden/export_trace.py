#!/usr/bin/env python3
"""What upstream's own CLI writes for `hermes sessions export --format trace` (Claude Code JSONL for the Hugging Face
Agent Trace Viewer) and prints for `--format html`, on the fidelity golden home plus one session written here with
upstream's SessionDB: a tool call whose arguments and result hold real-looking credentials, an image turn, a system
prompt and a summary row.

  /usr/bin/python3 scripts/golden/export_trace.py        # HERMES_UPSTREAM defaults to /work/upstream

Reads test/fixtures/upstream/fidelity/home (scripts/golden/fidelity.py); writes test/fixtures/upstream/export-trace/:
  home/state.db  the fidelity home's default profile with the added session (what the Caduceus test exports)
  cases.json     {"upstream_commit", "traces": {case: [record, ...]}, "printed": {case: what the CLI printed},
                 "files": {case: [file names written]}}
Each trace record is kept whole except what upstream makes up per run: `uuid` and `parentUuid` become the index of
the record (and of its parent) in the file, `timestamp` (the export time) and `cwd` (the exporting shell's) become
"X", and a `tool_use` id upstream had to invent (`toolu_<random>`) becomes "toolu_X".
"""
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "test" / "fixtures" / "upstream" / "fidelity"
OUT = ROOT / "test" / "fixtures" / "upstream" / "export-trace"

KEYS = {
    "openai": "sk-proj-Zx81bQ4nTq7LmV2cW9eR0aYu",
    "github": "ghp_R2d9Kq7LmZx81bQ4nTqWc0aYuV3eP5sD",
    "aws": "AKIAZ7Q4N2LMV8CW9ER0",
}
RESULT = (
    f"found .env:\nOPENAI_API_KEY={KEYS['openai']}\n"
    f"GITHUB_TOKEN={KEYS['github']}\naws_access_key_id = {KEYS['aws']}\n"
)


def add_session(home):
    """The session "trace-keys", written by upstream's SessionDB as its agent would."""
    sys.path.insert(0, UPSTREAM)
    import hermes_state as hs  # noqa: E402

    db = hs.SessionDB(home / "state.db")
    db.create_session("trace-keys", "cli", model="claude-x", system_prompt="You are terse.", cwd="/srv/app")
    t = 1500040000.0
    db.append_message("trace-keys", "system", "You are terse.", timestamp=t)
    db.append_message("trace-keys", "user", "  check my .env for keys  ", timestamp=t + 1)
    calls = [
        {"id": "call_env", "type": "function",
         "function": {"name": "read_file", "arguments": json.dumps({"path": ".env", "token": KEYS["github"]})}},
        {"type": "function", "function": {"name": "terminal", "arguments": "not json {"}},
    ]
    db.append_message("trace-keys", "assistant", "Reading it.", tool_calls=calls, timestamp=t + 2)
    db.append_message("trace-keys", "tool", RESULT, tool_call_id="call_env", tool_name="read_file", timestamp=t + 3)
    db.append_message("trace-keys", "tool", "", tool_name="terminal", timestamp=t + 4)
    db.append_message("trace-keys", "user", [
        {"type": "text", "text": "and this screenshot"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ], timestamp=t + 5)
    db.append_message("trace-keys", "assistant", None, timestamp=t + 6)
    db.append_message("trace-keys", "user", "[CONTEXT COMPACTION] Earlier: keys were found.", timestamp=t + 7)
    db.append_message("trace-keys", "assistant", "Rotate all three keys.", timestamp=t + 8)
    db.end_session("trace-keys", "cli_close")
    db.close()


UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def normalise(text):
    """Records with per-run values replaced (see the module text)."""
    recs = [json.loads(line) for line in text.splitlines() if line.strip()]
    index = {r["uuid"]: i for i, r in enumerate(recs)}
    out = []
    for r in recs:
        assert UUID.match(r["uuid"]), r["uuid"]
        r = {**r, "uuid": index[r["uuid"]], "parentUuid": None if r["parentUuid"] is None else index[r["parentUuid"]],
             "timestamp": "X", "cwd": "X"}
        for b in r["message"]["content"] if isinstance(r["message"]["content"], list) else []:
            if b.get("type") == "tool_use" and re.match(r"^toolu_[0-9a-f]{16}$", b["id"]):
                b["id"] = "toolu_X"
        out.append(r)
    return out


# (name, flags): "OUT" a file in a fresh directory, "DIR" a fresh directory
TRACE = [
    ("big-tools", ["--session-id", "big-tools", "-"]),
    ("mm-many", ["--session-id", "mm-many", "-"]),
    ("odd", ["--session-id", "odd", "-"]),
    ("compact", ["--session-id", "compact", "-"]),
    ("chain-3", ["--session-id", "chain-3", "-"]),
    ("trace-keys", ["--session-id", "trace-keys", "-"]),
    ("trace-keys no-redact", ["--session-id", "trace-keys", "--no-redact", "-"]),
    ("trace-keys file", ["--session-id", "trace", "OUT"]),
    ("bare", ["-"]),
    ("filter one", ["--source", "discord", "-"]),
    ("filter many", ["--title", "plan", "DIR"]),
    ("filter dry-run", ["--title", "plan", "--dry-run", "DIR"]),
    ("filter none", ["--source", "nowhere", "DIR"]),
    ("empty", ["--session-id", "empty-titled", "-"]),
    ("missing", ["--session-id", "nope", "-"]),
    ("only", ["--only", "user-prompts", "-"]),
]
HTML = [
    ("one", ["--session-id", "big-tools", "OUT"]),
    ("filter", ["--title", "plan", "OUT"]),
    ("stdout", ["-"]),
    ("none", []),
    ("missing", ["--session-id", "nope", "OUT"]),
]


def run(home, fmt, flags):
    tmp = Path(tempfile.mkdtemp(prefix="golden-trace-out-"))
    out_file, out_dir = tmp / "out.file", tmp / "dir"
    argv = [str(out_file) if f == "OUT" else str(out_dir) if f == "DIR" else f for f in flags]
    p = hermes(home, "sessions", "export", "--format", fmt, *argv)
    printed = p.stdout.replace(str(out_file), "OUT").replace(str(out_dir), "DIR").replace(str(home), "HOME")
    files = {}
    if out_file.exists():
        files["OUT"] = out_file.read_text(encoding="utf-8")
    for d in (out_dir, home / "session-exports"):
        if d.exists():
            for f in sorted(d.iterdir()):
                files[f.name] = f.read_text(encoding="utf-8")
            shutil.rmtree(d)
    shutil.rmtree(tmp)
    return printed, files


def main():
    home = Path(tempfile.mkdtemp(prefix="golden-trace-"))
    shutil.copy(FIDELITY / "home" / "state.db", home / "state.db")
    add_session(home)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "home").mkdir(exist_ok=True)
    shutil.copy(home / "state.db", OUT / "home" / "state.db")
    traces, printed, written = {}, {}, {}
    for name, flags in TRACE:
        out, files = run(home, "trace", flags)
        if out.lstrip().startswith("{"):
            traces[name], out = normalise(out), ""
        for f, text in files.items():
            traces[f"{name}: {f}"] = normalise(text)
        printed[name], written[name] = out, sorted(files)
        print("trace", name, repr(out[:80]), sorted(files)[:4])
    for name, flags in HTML:
        out, files = run(home, "html", flags)
        printed[f"html {name}"], written[f"html {name}"] = out, sorted(files)
        print("html", name, repr(out[:80]), sorted(files))
    shutil.rmtree(home)
    cases = {"upstream_commit": COMMIT, "traces": traces, "printed": printed, "files": written}
    (OUT / "cases.json").write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
