"""Golden rows holding control characters (NUL, ESC, other C0 codes), as upstream Hermes stores them.

Upstream commit: thanhdatbui/hermes-agent 9a75ff049b020ab5b24f76892f50f59064811028 ($HERMES_UPSTREAM, default
/work/upstream). Usage: /usr/bin/python3 scripts/golden/control_chars.py   (no network)

Each call is dispatched through upstream's own tool registry, wrapped by `make_tool_result_message` and persisted
with `SessionDB.append_message`, as tool_results_more.py does: a terminal command printing a NUL and a colour
sequence (upstream strips the sequence, keeps the NUL, JSON-escaped as \\u0000), read_file of a text file holding
colour sequences and a bell (kept as they are in the file), execute_code printing a NUL, a form feed and a colour
sequence; then an assistant reply whose text carries a colour sequence (upstream stores a reply as the model
wrote it); and a second session whose first words carry a colour sequence and a NUL. Writes
test/fixtures/upstream/control-chars/rows.json: the first session's `messages` rows, read back, and `previews`: the
preview upstream's `list_sessions_rich` gives each session (cut at the NUL, the ESCs kept).
"""
import json
import os
import re
from pathlib import Path

from golden_setup import message_rows, temp_dir, upstream_home

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "control-chars"
WORK = temp_dir("caduceus-golden-ctl-")
home = upstream_home("caduceus-golden-ctl-home-")
os.environ["TERMINAL_CWD"] = str(WORK)
os.chdir(WORK)

import model_tools  # noqa: E402,F401  (registers every tool module with the registry)
from agent.tool_dispatch_helpers import make_tool_result_message  # noqa: E402
from hermes_state import SessionDB  # noqa: E402
from tools.registry import registry  # noqa: E402

(WORK / "log.txt").write_text("\x1b[32mok\x1b[0m build\nbell:\x07:end\n")
db = SessionDB(db_path=home / "state.db")
sid = "golden-control-chars"
db.create_session(sid, "cli", model="golden-model")
clock = 1796000010.0
db.append_message(sid, "user", content="Show me the odd bytes.", timestamp=clock - 5)
CASES = [
    ("terminal", {"command": "printf 'nul:\\000:end\\n\\033[31mred\\033[0m\\n'"}),
    ("read_file", {"path": "log.txt"}),
    ("execute_code", {"code": "print('nul:\\x00:ff:\\x0c:end')\nprint('\\x1b[1mbold\\x1b[0m')"}),
]
for i, (name, args) in enumerate(CASES, start=1):
    call_id = f"call_ctl_{i}"
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    db.append_message(sid, "assistant", content=None, tool_calls=[call], finish_reason="tool_calls", timestamp=clock)
    msg = make_tool_result_message(name, registry.dispatch(name, args, task_id="golden"), call_id)
    db.append_message(sid, "tool", content=msg["content"], tool_name=msg["tool_name"], tool_call_id=call_id,
                      timestamp=clock + 1)
    clock += 5
db.append_message(sid, "assistant", content="Done: \x1b[32mgreen\x1b[0m means ok.", finish_reason="stop",
                  timestamp=clock)
# a session whose first words carry a colour sequence and a NUL: the preview upstream's list gives it
db.create_session("golden-control-preview", "cli", model="golden-model")
db.append_message("golden-control-preview", "user", content="\x1b[1mBold ask\x1b[0m with nul\x00here",
                  timestamp=clock + 10)
previews = {r["id"]: r["preview"] for r in db.list_sessions_rich(limit=10)}
db.close()

rows = message_rows(home / "state.db", sid)
# ensure_ascii: the control characters stay visible escapes in the file itself
text = json.dumps({"session": sid, "rows": rows, "previews": previews}, indent=2) + "\n"
text = text.replace(str(WORK), "/home/user/project").replace(str(home), "/home/user/.hermes")
text = re.sub(r"hermes_sandbox_[a-z0-9_]+", "hermes_sandbox_x", text)
text = re.sub(r'(\\"duration_seconds\\": )[\d.]+', r"\g<1>0.04", text)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "rows.json").write_text(text)
print(f"wrote {len(rows)} rows to {OUT / 'rows.json'}")
