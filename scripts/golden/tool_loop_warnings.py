"""Golden tool results carrying upstream's tool-loop guard: the warning it appends to a repeated failure or a
read-only call that keeps returning the same thing, and the result it stores in place of a call it blocks.

Upstream commit: 9a75ff049b020ab5b24f76892f50f59064811028 (the v21 fork at $HERMES_UPSTREAM, default /work/upstream).
Usage: /usr/bin/python3 scripts/golden/tool_loop_warnings.py   (no network)

One turn of calls, each through the steps upstream's tool executor takes (agent/tool_executor.py): the guard's
before_call (a blocked call gets toolguard_synthetic_result instead of running), the tool dispatched by name through
upstream's registry, agent.display._detect_tool_failure for its outcome, the guard's after_call and
append_toolguard_guidance (what AIAgent._append_guardrail_observation does), then make_tool_result_message and
SessionDB.append_message. The guard is upstream's ToolCallGuardrailController with its default config (warnings on,
hard stops as config.yaml's default leaves them). Rows go to test/fixtures/upstream/tool-loop-warnings/rows.json with
the workspace path replaced by a stable placeholder.
"""

from pathlib import Path

from golden_setup import store_tool_call, tool_workspace, upstream_home, write_rows_json

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "tool-loop-warnings"
WORK = tool_workspace("caduceus-golden-ws-loop")
home = upstream_home("caduceus-golden-home-loop-")

import model_tools  # noqa: E402,F401  (registers every tool module with the registry)
from agent.display import _detect_tool_failure  # noqa: E402
from agent.tool_guardrails import (  # noqa: E402
    ToolCallGuardrailConfig,
    ToolCallGuardrailController,
    append_toolguard_guidance,
    toolguard_synthetic_result,
)
from hermes_state import SessionDB  # noqa: E402
from tools.registry import registry  # noqa: E402

(WORK / "src" / "app.py").write_text("def main():\n    return 1\n")

# the guard as the agent builds it from config.yaml's `tool_loop_guardrails` section: absent (the defaults: warnings
# only), then with `hard_stop_enabled: true` for the last calls, in a later turn
default_guard = ToolCallGuardrailController(ToolCallGuardrailConfig.from_mapping({}))
strict_guard = ToolCallGuardrailController(ToolCallGuardrailConfig.from_mapping({"hard_stop_enabled": True}))

CASES = [
    ("terminal", {"command": "cat missing.txt"}),
    ("terminal", {"command": "cat missing.txt"}),  # the same failure again: warned
    ("terminal", {"command": "ls nowhere"}),  # a third failure of the tool: warned with its recovery hint
    ("search_files", {"pattern": "main", "target": "content", "path": "src"}),
    ("search_files", {"pattern": "main", "target": "content", "path": "src"}),  # the same answer again: warned
    ("terminal", {"command": "echo ok"}),  # a success clears the failure counts
    # a web tool's failure repeated: the warning sits inside upstream's untrusted-content wrapper
    ("web_search", {"query": "hermes agent"}),
    ("web_search", {"query": "hermes agent"}),
] + [("read_file", {"path": "src/missing.py"})] * 3  # failing unchanged, upstream's read_file warning beside the guard's
# hard stops on: the sixth identical failure is not run; the guard's own result stands in for it
STRICT = [("terminal", {"command": "cat missing.txt"})] * 6

db = SessionDB(db_path=home / "state.db")
sid = "golden-loop"
db.create_session(sid, "cli", model="golden-model")
clock = 1796200000.0
db.append_message(sid, "user", content="Find out why the app fails.", timestamp=clock - 5)
for i, (name, args) in enumerate(CASES + STRICT, start=1):
    call_id = f"call_loop_{i}"
    guard = default_guard if i <= len(CASES) else strict_guard
    decision = guard.before_call(name, args)
    if not decision.allows_execution:
        result = toolguard_synthetic_result(decision)
    else:
        result = registry.dispatch(name, args, task_id="golden-loop")
        failed, _ = _detect_tool_failure(name, result)
        after = guard.after_call(name, args, result, failed=failed)
        result = append_toolguard_guidance(result, after)
    store_tool_call(db, sid, name, args, call_id, result, clock)
    clock += 5
db.append_message(sid, "assistant", content="src/missing.py does not exist.", finish_reason="stop", timestamp=clock)
db.close()

write_rows_json(OUT, home / "state.db", sid, WORK)
