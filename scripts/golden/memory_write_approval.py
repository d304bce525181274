"""What upstream's memory tool does when config.yaml's `memory.write_approval` is on and no one can approve inline (a
gateway, API, cron or background turn; any surface but its interactive terminal): it saves nothing and stages the
write under <home>/pending/memory/<id>.json for the user to approve later (`/memory pending`). Upstream fork at
schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028: tools/memory_tool.py memory_tool, tools/write_approval.py.

  /usr/bin/python3 scripts/golden/memory_write_approval.py        # HERMES_UPSTREAM defaults to /work/upstream

Approving and rejecting (hermes_cli/write_approval_commands.py, the `/memory approve|reject <id>` handler, and
apply_memory_pending): approve.json holds per case the record upstream staged (whole, as a file in pending/memory),
the handler's answer, the pending ids left, and MEMORY.md / USER.md after the decision.

Each case runs in a fresh home (MEMORY.md holding one entry) with config.yaml's `memory.write_approval` set to a
value as a user writes it, then one memory tool call. Writes test/fixtures/upstream/memory-write-approval/cases.json:
per case the answer (pending_id left out: a random id), the pending records the home then holds (id and created_at
left out), and MEMORY.md / USER.md afterwards.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from golden_setup import temp_dir, write_files
from upstream_cli import UPSTREAM, upstream_commit

DEST = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "memory-write-approval"
START = "Deploys happen on Fridays."
CALLS = [
    ("add", {"action": "add", "target": "memory", "content": "User prefers metric units."}),
    ("add user", {"action": "add", "target": "user", "content": "Name: Dana.\nTimezone: Europe/Berlin."}),
    ("replace", {"action": "replace", "target": "memory", "old_text": "Fridays", "content": "Deploys happen on Thursdays."}),
    ("remove", {"action": "remove", "target": "memory", "old_text": "Deploys"}),
    ("long add", {"action": "add", "target": "memory", "content": "é" * 130 + " end"}),
    ("batch", {"target": "memory", "operations": [
        {"action": "remove", "old_text": "Fridays"},
        {"action": "add", "content": "Deploys happen on Thursdays."},
        {"action": "replace", "old_text": "x", "content": "y"},
        {"content": "no action given"},
    ]}),
    ("add without content", {"action": "add", "target": "memory"}),
    ("remove without old_text", {"action": "remove", "target": "memory"}),
]
# how users write the switch (YAML 1.1 booleans, and the words upstream's own reader takes)
SWITCHES = ["true", "'yes'", "approve", "on", "'1'", "false", "'no'", "'maybe'"]

PROBE = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from tools.memory_tool import load_on_disk_store, memory_tool
store = load_on_disk_store()
print(json.dumps(json.loads(memory_tool(store=store, **json.loads(sys.argv[2])))))
"""


def run(switch, call):
    home = temp_dir("golden-memory-approval-")
    write_files(home, {"memories/MEMORY.md": START, "config.yaml": f"memory:\n  write_approval: {switch}\n"})
    out = subprocess.run(
        ["/usr/bin/python3", "-c", PROBE, UPSTREAM, json.dumps(call)],
        env={**os.environ, "HERMES_HOME": str(home)}, capture_output=True, text=True, check=True,
    )
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    answer.pop("pending_id", None)
    records = []
    pending = home / "pending" / "memory"
    for p in sorted(pending.glob("*.json")) if pending.exists() else []:
        rec = json.loads(p.read_text())
        assert p.stem == rec.pop("id")
        assert isinstance(rec.pop("created_at"), float)
        records.append(rec)
    files = {
        name: (home / "memories" / name).read_text() if (home / "memories" / name).exists() else None
        for name in ("MEMORY.md", "USER.md")
    }
    return {"answer": answer, "pending": records, "files": files}


DECIDE = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from tools.memory_tool import load_on_disk_store, memory_tool
from tools import write_approval as wa
from hermes_cli.write_approval_commands import handle_pending_subcommand
store = load_on_disk_store()
staged = json.loads(memory_tool(store=store, **json.loads(sys.argv[2])))
record = wa.get_pending(wa.MEMORY, staged["pending_id"])
answer = handle_pending_subcommand(wa.MEMORY, [sys.argv[3], record["id"]], memory_store=load_on_disk_store())
print(json.dumps({"record": record, "answer": answer, "left": [r["id"] for r in wa.list_pending(wa.MEMORY)]}))
"""
DECISIONS = [
    ("approve add", "approve", CALLS[0][1], ""),
    ("approve add user", "approve", CALLS[1][1], ""),
    ("approve replace", "approve", CALLS[2][1], ""),
    ("approve remove", "approve", CALLS[3][1], ""),
    ("approve batch", "approve", {"target": "memory", "operations": [
        {"action": "remove", "old_text": "Fridays"},
        {"action": "add", "content": "Deploys happen on Thursdays."},
    ]}, ""),
    # refused when applied: the record stays
    ("approve batch refused", "approve", CALLS[5][1], ""),
    ("approve replace no match", "approve", {"action": "replace", "target": "memory", "old_text": "Mondays", "content": "x"}, ""),
    ("approve over limit", "approve", CALLS[0][1], "  memory_char_limit: 40\n"),
    ("reject add", "reject", CALLS[0][1], ""),
]


def decide(verb, call, extra):
    home = temp_dir("golden-memory-approval-")
    write_files(home, {"memories/MEMORY.md": START, "config.yaml": f"memory:\n  write_approval: true\n{extra}"})
    out = subprocess.run(
        ["/usr/bin/python3", "-c", DECIDE, UPSTREAM, json.dumps(call), verb],
        env={**os.environ, "HERMES_HOME": str(home)}, capture_output=True, text=True, check=True,
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["files"] = {
        name: (home / "memories" / name).read_text() if (home / "memories" / name).exists() else None
        for name in ("MEMORY.md", "USER.md")
    }
    return res


def main():
    cases = [{"name": name, "switch": "true", "call": call, **run("true", call)} for name, call in CALLS]
    switches = [{"switch": s, **run(s, CALLS[0][1])} for s in SWITCHES]
    DEST.mkdir(parents=True, exist_ok=True)
    out = {"upstream_commit": upstream_commit(), "start": START, "cases": cases, "switches": switches}
    (DEST / "cases.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    decisions = [
        {"name": name, "decision": verb, "config": f"memory:\n  write_approval: true\n{extra}", **decide(verb, call, extra)}
        for name, verb, call, extra in DECISIONS
    ]
    approve = {"upstream_commit": upstream_commit(), "start": START, "cases": decisions}
    (DEST / "approve.json").write_text(json.dumps(approve, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1, ensure_ascii=False)[:6000])


if __name__ == "__main__":
    sys.exit(main())
