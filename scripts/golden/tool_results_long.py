"""Golden results of long searches and long files: the shapes upstream's search_files and read_file return for them.

Upstream commit: 9a75ff049b020ab5b24f76892f50f59064811028 (the v21 fork at $HERMES_UPSTREAM, default /work/upstream).
Usage: /usr/bin/python3 scripts/golden/tool_results_long.py   (needs ripgrep or grep; no network)

Each call is dispatched by name through upstream's own tool registry, wrapped with make_tool_result_message and
persisted with SessionDB.append_message, as tool_results_more.py does. The cases are what a daily grep meets and the
first two sets do not hold: five or more content matches (upstream then writes them as one path-grouped
`matches_text` block instead of the `matches` list), context lines, `output_mode` "count" (`counts` per file) and
"files_only", and a search with more matches than its `limit` (`truncated`, and a `[Hint: …]` line appended after
the JSON, so the stored text is not JSON). The rows go to test/fixtures/upstream/tool-results-long/rows.json with
the workspace path replaced by a stable placeholder. Last, the notes upstream puts beside a result: `_warning` on the
third same search or read in a row, `_omitted` when a search's hits include a secret-bearing file (.env).
"""

import os
from pathlib import Path

from golden_setup import store_tool_call, tool_workspace, upstream_home, write_files, write_rows_json

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "tool-results-long"
WORK = tool_workspace("caduceus-golden-ws-long")
home = upstream_home("caduceus-golden-home-long-")

import model_tools  # noqa: E402,F401  (registers every tool module with the registry)
from hermes_state import SessionDB  # noqa: E402
from tools.registry import registry  # noqa: E402

write_files(WORK, {
    "src/greet.py": 'import sys\n\n\ndef greet(name: str) -> str:\n    return f"Hello, {name}!"\n\n\n'
    "def greet_all(names):\n    return [greet(n) for n in names]\n\n\n"
    'if __name__ == "__main__":\n    print(greet(sys.argv[1]))\n',
    "src/app.ts":
    "import { greet } from './greet'\n\nexport const hello = greet('Ada')\nexport const café = greet('Zoë')  \n",
    "src/empty.md": "nothing to see\n",
    "data/table.py": "".join(f"ROW_{i} = {i}\n" for i in range(1, 621)),
})

CASES = [
    # five matches in two files: the path-grouped block (trailing spaces of a match are dropped by upstream)
    {"pattern": "greet", "target": "content", "path": "src"},
    # one line of context around each match
    {"pattern": "greet_all", "target": "content", "path": "src", "context": 1},
    # more lines than the limit (context lines count): truncated, and the hint line after the JSON, below and above
    # the five matches upstream groups
    {"pattern": "greet", "target": "content", "path": "src", "context": 1, "limit": 3},
    {"pattern": "greet", "target": "content", "path": "src", "context": 1, "limit": 6, "file_glob": "*.py"},
    {"pattern": "greet", "target": "content", "path": "src", "output_mode": "count"},
    {"pattern": "greet", "target": "content", "path": "src", "output_mode": "files_only"},
]
READS = [
    {"path": "data/table.py"},  # 620 lines: the first 500
    {"path": "data/table.py", "offset": 601, "limit": 10},  # a page inside the file
    {"path": "src/greet.py", "offset": 50},  # past the end
]

db = SessionDB(db_path=home / "state.db")
sid = "golden-search"
db.create_session(sid, "cli", model="golden-model")
clock = 1796100000.0
db.append_message(sid, "user", content="Where is greet used?", timestamp=clock - 5)
CALLS = [("search_files", f"call_search_{i}", a) for i, a in enumerate(CASES, start=1)]
CALLS += [("read_file", f"call_read_{i}", a) for i, a in enumerate(READS, start=1)]
# The notes upstream adds beside a result: the same search or read run a third time in a row in one task
# (`_warning`), and a search whose hits include a secret-bearing file it leaves out (`_omitted`).
REPEAT_SEARCH = {"pattern": "greet_all", "target": "content", "path": "src"}
REPEAT_READ = {"path": "src/app.ts", "offset": 1, "limit": 2}
CALLS += [("search_files", f"call_again_search_{i}", REPEAT_SEARCH) for i in (1, 2, 3)]
CALLS += [("read_file", f"call_again_read_{i}", REPEAT_READ) for i in (1, 2, 3)]
CALLS += [("search_files", "call_omit_1", {"pattern": "TOKEN", "target": "content", "path": "src"})]
TASKS = {"call_again_search": "golden-again-search", "call_again_read": "golden-again-read"}
for name, call_id, args in CALLS:
    task = TASKS.get(call_id.rsplit("_", 1)[0], f"golden-{call_id}")
    if call_id.startswith("call_again_read_"):
        # a file changed since the last read is read again (an unchanged one gets upstream's "unchanged" answer)
        os.utime(WORK / "src" / "app.ts", (clock, clock))
    if call_id == "call_omit_1":  # (written only now: the searches above do not meet them)
        (WORK / "src" / ".env").write_text("API_TOKEN=golden-not-a-secret\n")
        (WORK / "src" / "notes.md").write_text("The TOKEN goes in .env\n")
    result = registry.dispatch(name, args, task_id=task)
    store_tool_call(db, sid, name, args, call_id, result, clock)
    clock += 5
db.append_message(sid, "assistant", content="greet is used in greet.py and app.ts.", finish_reason="stop",
                  timestamp=clock)
db.close()

write_rows_json(OUT, home / "state.db", sid, WORK)
