"""Golden tool results: run upstream Hermes' own tools and store their results the way upstream does.

Usage: python3 scripts/golden/tool_results.py   (needs a Python with `requests` and `yaml`, e.g. pyenv 3.11)

Upstream is imported from $HERMES_UPSTREAM (default /work/upstream). Each case calls one of upstream's tool
functions in a scratch workspace, wraps the result with upstream's make_tool_result_message, persists the call
and its result through upstream's SessionDB.append_message, and reads the rows back from SQLite. The rows go
to test/fixtures/upstream/tool-results/rows.json exactly as stored (role, content, tool_calls, tool_call_id,
tool_name, timestamp); the workspace path is replaced by a stable placeholder so the data does not depend on
where it was generated.
"""

import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "tool-results"
WORK = Path(tempfile.gettempdir()) / "caduceus-golden-ws"
PLACEHOLDER = "/home/user/project"

shutil.rmtree(WORK, ignore_errors=True)
(WORK / "src").mkdir(parents=True)
home = Path(tempfile.mkdtemp(prefix="caduceus-golden-home-"))
os.environ["HERMES_HOME"] = str(home)
os.environ["TERMINAL_CWD"] = str(WORK)
os.chdir(WORK)
sys.path.insert(0, UPSTREAM)

from agent.tool_dispatch_helpers import make_tool_result_message  # noqa: E402
from hermes_state import SessionDB  # noqa: E402
from tools.file_tools import patch_tool, read_file_tool, search_tool, write_file_tool  # noqa: E402
from tools.terminal_tool import terminal_tool  # noqa: E402
from tools.todo_tool import TodoStore, todo_tool  # noqa: E402

(WORK / "src" / "greet.py").write_text(
    'import sys\n\n\ndef greet(name: str) -> str:\n    """Say hello."""\n    return f"Hello, {name}!"\n\n\n'
    'if __name__ == "__main__":\n    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))\n'
)
(WORK / "src" / "total.ts").write_text(
    "".join(f"// line {i}\n" for i in range(1, 8))
    + "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0)\n}\n"
)

# (tool name, arguments, the upstream call producing the result)
CASES = [
    ("terminal", {"command": "python3 src/greet.py Ada && printf 'line two\\nline three\\n'"},
     lambda a: terminal_tool(a["command"])),
    ("terminal", {"command": "ls missing-dir"}, lambda a: terminal_tool(a["command"])),
    ("read_file", {"path": "src/greet.py"}, lambda a: read_file_tool(str(WORK / a["path"]))),
    ("read_file", {"path": "src/total.ts", "offset": 8, "limit": 3},
     lambda a: read_file_tool(str(WORK / a["path"]), offset=a["offset"], limit=a["limit"])),
    ("patch", {"mode": "replace", "path": "src/greet.py", "old_string": 'return f"Hello, {name}!"',
               "new_string": 'return f"Hello, {name.title()}!"'},
     lambda a: patch_tool(mode="replace", path=str(WORK / a["path"]), old_string=a["old_string"],
                          new_string=a["new_string"])),
    ("search_files", {"pattern": "greet", "target": "content", "path": "src"},
     lambda a: search_tool(a["pattern"], target="content", path=str(WORK / a["path"]))),
    ("search_files", {"pattern": "*.ts", "target": "files", "path": "."},
     lambda a: search_tool(a["pattern"], target="files", path=str(WORK))),
    ("write_file", {"path": "NOTES.md", "content": "# Notes\n\nGreeting works.\n"},
     lambda a: write_file_tool(str(WORK / a["path"]), a["content"])),
    ("todo", {"todos": [{"id": "1", "content": "Title-case the name", "status": "completed"},
                        {"id": "2", "content": "Add a test", "status": "pending"}]},
     lambda a: todo_tool(todos=a["todos"], store=TodoStore())),
]

db_path = home / "state.db"
db = SessionDB(db_path=db_path)
sid = "golden-tools"
db.create_session(sid, "cli", model="golden-model")
db.append_message(sid, "user", content="Greet Ada, fix the name casing and show me what changed.", timestamp=1796000000.0)
clock = 1796000010.0
for i, (name, args, run) in enumerate(CASES, start=1):
    call_id = f"call_golden_{i}"
    started = time.monotonic()
    result = run(args)
    took = round(time.monotonic() - started, 3)
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    db.append_message(sid, "assistant", content=None, tool_calls=[call], finish_reason="tool_calls", timestamp=clock)
    msg = make_tool_result_message(name, result, call_id)
    db.append_message(sid, "tool", content=msg["content"], tool_name=msg["tool_name"],
                      tool_call_id=msg["tool_call_id"], timestamp=clock + took)
    clock += 5
db.append_message(sid, "assistant", content="Done: the greeting now title-cases the name.", finish_reason="stop",
                  timestamp=clock)
db.close()

con = sqlite3.connect(db_path)
con.row_factory = sqlite3.Row
rows = [dict(r) for r in con.execute(
    "SELECT role, content, tool_calls, tool_call_id, tool_name, timestamp, finish_reason FROM messages"
    " WHERE session_id = ? ORDER BY id", (sid,))]
con.close()
for r in rows:
    if r["tool_calls"]:
        r["tool_calls"] = json.loads(r["tool_calls"])
text = json.dumps({"session": sid, "rows": rows}, indent=2, ensure_ascii=False) + "\n"
text = text.replace(str(WORK), PLACEHOLDER)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "rows.json").write_text(text)
print(f"wrote {len(rows)} rows to {OUT / 'rows.json'}; record the upstream commit in README.md beside it")
shutil.rmtree(home, ignore_errors=True)
shutil.rmtree(WORK, ignore_errors=True)
