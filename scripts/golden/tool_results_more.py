"""Golden tool results, second set: upstream Hermes' other tools, run through upstream's own tool registry.

Usage: /usr/bin/python3 scripts/golden/tool_results_more.py   (needs `yaml`, `httpx`, `requests`; no network)

Upstream is imported from $HERMES_UPSTREAM (default /work/upstream). Where tool_results.py calls a few file tools
directly, this one dispatches each call by name through upstream's `tools.registry.registry.dispatch` (what the
agent's executor calls, with the agent's own stores passed for memory and session_search), then wraps the result
with `make_tool_result_message` and persists call and result through `SessionDB.append_message`, so every string is
what upstream would store. It covers tools the first set does not (execute_code, process, memory, skills,
session_search, cronjob, clarify and delegate_task outside an agent, vision, image and speech tools without a
backend, web_search without a key, an unknown tool), outcomes the first set does not (empty output, non-ASCII,
JSON printed by a program, a background process), a multimodal result (upstream's native vision envelope, stored
as the content list a vision model is sent), and the transcript shapes around results: parallel calls answered out
of order, arguments that are not JSON (upstream answers with its own error and does not run the tool), one command
run twice under the same call id (upstream derives an id from tool, arguments and place when the provider sends
none), and a result whose call id matches no call. Machine-specific values (scratch paths, pids, process and job ids, dates)
are replaced by stable placeholders so the data does not depend on where or when it was generated.
"""

import asyncio
import base64
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from golden_setup import message_rows, upstream_home

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "tool-results-more"
WORK = Path(tempfile.gettempdir()) / "caduceus-golden-ws2"
PLACEHOLDER = "/home/user/project"

shutil.rmtree(WORK, ignore_errors=True)
(WORK / "src").mkdir(parents=True)
home = upstream_home("caduceus-golden-home2-")
os.environ["TERMINAL_CWD"] = str(WORK)
os.chdir(WORK)

import model_tools  # noqa: E402,F401  (registers every tool module with the registry)
from agent.codex_responses_adapter import _deterministic_call_id  # noqa: E402
from agent.tool_dispatch_helpers import make_tool_result_message  # noqa: E402
from agent.tool_executor import _parse_tool_arguments  # noqa: E402
from hermes_state import SessionDB  # noqa: E402
from tools.memory_tool import MemoryStore  # noqa: E402
from tools.process_registry import process_registry  # noqa: E402
from tools.registry import registry  # noqa: E402
from tools.vision_tools import _vision_analyze_native  # noqa: E402

(WORK / "src" / "café.py").write_text('print("héllo wörld ✓ — naïve café")\n')
skill = home / "skills" / "writing" / "release-notes"
skill.mkdir(parents=True)
(skill / "SKILL.md").write_text(
    "---\nname: release-notes\ndescription: Write release notes from merged pull requests.\n---\n\n"
    "# Release notes\n\n1. List merged PRs since the last tag.\n2. Group them by area.\n"
)
# a 1x1 PNG for the native vision path
(WORK / "dot.png").write_bytes(base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="))

db_path = home / "state.db"
db = SessionDB(db_path=db_path)
memory = MemoryStore()
memory.load_from_disk()
# an earlier session for session_search to find
db.create_session("earlier-chat", "cli", model="golden-model")
db.append_message("earlier-chat", "user", content="Where did I put the café notes?", timestamp=1795990000.0)
db.append_message("earlier-chat", "assistant", content="In NOTES.md.", finish_reason="stop", timestamp=1795990005.0)

sid = "golden-tools-more"
db.create_session(sid, "cli", model="golden-model")


def dispatch(name, args):
    kw = {}
    if name == "memory":
        kw["store"] = memory
    if name == "session_search":
        kw.update(db=db, current_session_id=sid)
    return registry.dispatch(name, args, task_id="golden", **kw)


def vision_native(args):
    env = asyncio.run(_vision_analyze_native(args["image_url"], args["question"], task_id="golden"))
    # a vision-capable model is sent (and the session stores) the envelope's content parts
    return env["content"] if isinstance(env, dict) and env.get("_multimodal") else env


PY_JSON = "import json; print(json.dumps({'ok': True, 'items': [1, 2], 'name': 'café'}))"
# (tool name, arguments as the model sent them (a string when not JSON), how to run it)
CASES = [
    ("terminal", {"command": "python3 src/café.py"}, dispatch),
    ("terminal", {"command": "true"}, dispatch),
    ("terminal", {"command": "sleep 60", "background": True}, dispatch),
    ("process", {"action": "list"}, dispatch),
    ("process", {"action": "poll", "session_id": "proc_000000000000"}, dispatch),
    ("execute_code", {"code": "print('ready')\nprint(sum(range(5)))"}, dispatch),
    ("execute_code", {"code": "print('aaa')\nprint(1/0)"}, dispatch),
    ("execute_code", {"code": PY_JSON}, dispatch),
    ("memory", {"action": "add", "target": "memory", "content": "User likes café au lait"}, dispatch),
    ("memory", {"action": "replace", "target": "memory", "old_text": "tea", "content": "green tea"}, dispatch),
    ("skills_list", {}, dispatch),
    ("skill_view", {"name": "release-notes"}, dispatch),
    ("skill_view", {"name": "no-such-skill"}, dispatch),
    ("session_search", {"query": "café"}, dispatch),
    ("session_search", {}, dispatch),
    ("cronjob", {"action": "create", "prompt": "Summarise the inbox", "schedule": "every 2h", "name": "inbox"},
     dispatch),
    ("cronjob", {"action": "list"}, dispatch),
    ("clarify", {"question": "Which branch?", "choices": ["main", "dev"]}, dispatch),
    ("delegate_task", {"goal": "Write the changelog"}, dispatch),
    ("vision_analyze", {"image_url": str(WORK / "missing.png"), "question": "What is shown?"}, dispatch),
    ("vision_analyze", {"image_url": str(WORK / "dot.png"), "question": "What colour is the dot?"}, vision_native),
    ("web_search", {"query": "hermes agent"}, dispatch),
    ("image_generate", {"prompt": "a caduceus"}, dispatch),
    ("text_to_speech", {"text": "hello"}, dispatch),
    ("no_such_tool", {"x": 1}, dispatch),
    ("write_file", {"path": "notes/été.md", "content": "# Été\n\nNotes — naïve café.\n"}, dispatch),
    ("read_file", {"path": "src/café.py"}, dispatch),
    # arguments the model sent that are not a JSON object: upstream does not run the tool and answers this
    ("terminal", '{"command": "ls -la', None),
]

clock = 1796000010.0
db.append_message(sid, "user", content="Try every tool once.", timestamp=clock - 5)


def run_one(i, name, args, run):
    call_id = f"call_more_{i}"
    raw_args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    parsed, invalid = _parse_tool_arguments(raw_args)
    started = time.monotonic()
    result = invalid if invalid is not None else run(name, parsed) if run is dispatch else run(parsed)
    return call_id, raw_args, result, round(time.monotonic() - started, 3)


for i, (name, args, run) in enumerate(CASES, start=1):
    call_id, raw_args, result, took = run_one(i, name, args, run)
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw_args}}
    db.append_message(sid, "assistant", content=None, tool_calls=[call], finish_reason="tool_calls", timestamp=clock)
    msg = make_tool_result_message(name, result, call_id)
    db.append_message(sid, "tool", content=msg["content"], tool_name=msg["tool_name"],
                      tool_call_id=msg["tool_call_id"], timestamp=clock + took)
    clock += 5

# parallel calls in one assistant row (with a sentence before them), their results stored as they finished
par = [("read_file", {"path": "src/café.py"}), ("terminal", {"command": "echo one"}),
       ("search_files", {"pattern": "café", "target": "content", "path": "src"})]
calls = [{"id": f"call_par_{k}", "type": "function",
          "function": {"name": n, "arguments": json.dumps(a, ensure_ascii=False)}} for k, (n, a) in enumerate(par)]
db.append_message(sid, "assistant", content="Reading the file and searching at once.", tool_calls=calls,
                  finish_reason="tool_calls", timestamp=clock)
for k in (2, 0, 1):
    n, a = par[k]
    msg = make_tool_result_message(n, dispatch(n, a), f"call_par_{k}")
    db.append_message(sid, "tool", content=msg["content"], tool_name=n, tool_call_id=f"call_par_{k}",
                      timestamp=clock + 0.2 + k / 10)
clock += 5
# the same call twice in one session under one id: upstream derives a call id from the tool, its arguments and its
# place when the provider sends none (codex_responses_adapter._deterministic_call_id), so repeating a command
# repeats its id; the file changes between the runs, so the two results differ
(WORK / "counter.txt").write_text("first run\n")
for run_text in ("first run\n", "second run\n"):
    (WORK / "counter.txt").write_text(run_text)
    args = {"command": "cat counter.txt"}
    raw = json.dumps(args)
    same_id = _deterministic_call_id("terminal", raw, 0)
    db.append_message(sid, "assistant", content=None, finish_reason="tool_calls", timestamp=clock,
                      tool_calls=[{"id": same_id, "type": "function", "function": {"name": "terminal", "arguments": raw}}])
    msg = make_tool_result_message("terminal", dispatch("terminal", args), same_id)
    db.append_message(sid, "tool", content=msg["content"], tool_name="terminal", tool_call_id=same_id,
                      timestamp=clock + 0.1)
    clock += 5
# a result whose call is not in the session (its assistant row was lost, or the id was rewritten)
msg = make_tool_result_message("terminal", dispatch("terminal", {"command": "echo orphan"}), "call_lost_1")
db.append_message(sid, "tool", content=msg["content"], tool_name="terminal", tool_call_id="call_lost_1",
                  timestamp=clock)
db.append_message(sid, "assistant", content="All done — every tool answered.", finish_reason="stop",
                  timestamp=clock + 5)
db.close()

rows = message_rows(db_path, sid)
text = json.dumps({"session": sid, "rows": rows}, indent=2, ensure_ascii=False) + "\n"
# stable placeholders for what differs by machine and run
text = text.replace(str(WORK), PLACEHOLDER).replace(str(home), "/home/user/.hermes")
text = re.sub(r"proc_[0-9a-f]{12}", "proc_0123456789ab", text)
text = re.sub(r'(\\"pid\\": )\d+', r"\g<1>4242", text)
text = re.sub(r"hermes_sandbox_[a-z0-9_]+", "hermes_sandbox_x", text)
text = re.sub(r"\b[0-9a-f]{12}\b", "0123456789ab", text)
text = re.sub(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00", "2026-12-06T09:00:00+00:00", text)
text = re.sub(r"[A-Z][a-z]+ \d\d, 20\d\d at \d\d:\d\d [AP]M", "December 06, 2026 at 07:00 AM", text)
text = re.sub(r'(\\"(?:started_at|last_active|timestamp)\\": )[\d.]+', r"\g<1>1795990000.0", text)
text = re.sub(r'(\\"duration_seconds\\": )[\d.]+', r"\g<1>0.04", text)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "rows.json").write_text(text)
print(f"wrote {len(rows)} rows to {OUT / 'rows.json'}; record the upstream commit in README.md beside it")
process_registry.kill_all()  # the background sleep
shutil.rmtree(WORK, ignore_errors=True)
