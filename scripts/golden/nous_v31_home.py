"""A two-profile v30 home built on the NEWEST upstream Hermes schema (NousResearch/hermes-agent).

The fork at /work/upstream is schema v21; the newest upstream is v30 and cannot be run here as a whole
(its SessionDB pulls in ~30 hermes_state_* modules plus agent.* and hermes_cli.*). What decides whether
Caduceus can share such a file is the DDL upstream executes: tables, the display-order triggers, the FTS
views and sync triggers (word, trigram, and the optional CJK-bigram index an install with the
``cjk_unicode61`` extension has). This script imports those DDL constants from upstream's own modules
(``hermes_state_common``, ``hermes_state_fts``) found under $HERMES_NOUS, runs them in upstream's order
(SCHEMA_SQL, DEFERRED_INDEX_SQL, FTS_SQL, FTS_TRIGRAM_SQL, the CJK table and triggers), and then writes rows
with the column conventions hermes-spec §1.5-§1.9 records, so every trigger upstream installs fires on them.

The CJK index needs upstream's loadable tokenizer, which this machine lacks: the table is created with the
built-in unicode61 tokenizer (same columns, same shadow tables) and its stored CREATE statement then names
``cjk_unicode61``, as it reads on an install that has the extension. A process without the extension
(Caduceus, or upstream on another host) then meets exactly what it would meet there.

v31 adds message identity (messages.message_uid, absorbed_message_uids, tool_call_uids, tool_call_uid, and a
trigger minting a uid for a row written without one), sessions.auto_archived and session_daily_usage in SCHEMA_SQL;
the rows carry them as upstream's current writer does (every row binds a uid; usage upserts the per-day ledger).

Writes test/fixtures/upstream/nous-v31/{state.db, profiles/work/state.db}.
Run: HERMES_NOUS=/tmp/nous /usr/bin/python3 scripts/golden/nous_v31_home.py
Upstream commits the DDL came from are recorded in the fixture README.
"""
import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path

NOUS = Path(os.environ.get("HERMES_NOUS", "/tmp/nous"))
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "nous-v31"
sys.path.insert(0, str(NOUS))
import hermes_state_common as common  # noqa: E402
import hermes_state_fts as fts  # noqa: E402

T0 = 1764579600.0  # 2025-12-01T09:00:00Z
MARKER = "\x00json:"  # upstream's structured-content prefix


def pyjson(v):
    return json.dumps(v)


def create_db(path: Path, cjk: bool) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(common.SCHEMA_SQL)
    db.executescript(common.DEFERRED_INDEX_SQL)
    db.executescript(common.FTS_SQL)
    db.executescript(common.FTS_TRIGRAM_SQL)
    if cjk:
        db.executescript(fts.FTS_CJK_TABLE_SQL.replace("tokenize='cjk_unicode61'", "tokenize='unicode61'"))
        db.executescript(fts.FTS_CJK_TRIGGER_SQL)
    # What upstream's SessionDB._init_schema (hermes_state_schema.py) adds on every open besides those constants.
    db.execute(
        "CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id "
        "ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL"
    )
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL")
    db.execute("INSERT INTO schema_version(version) VALUES (?)", (common.SCHEMA_VERSION,))
    db.execute("INSERT INTO state_meta(key, value) VALUES ('fts_storage_version', ?)", (str(common.FTS_STORAGE_VERSION),))
    return db


def name_cjk_tokenizer(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA writable_schema=ON")
    db.execute(
        "UPDATE sqlite_master SET sql = replace(sql, 'tokenize=''unicode61''', 'tokenize=''cjk_unicode61''') "
        "WHERE type = 'table' AND name = 'messages_fts_cjk'"
    )
    db.execute("PRAGMA writable_schema=OFF")
    db.close()


def uid(*parts) -> str:
    """A deterministic stand-in for upstream's random 32-hex message/tool-call uid."""
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:32]


class Writer:
    def __init__(self, db, profile):
        self.db, self.profile = db, profile
        self.identity = "message_uid" in {r[1] for r in db.execute("PRAGMA table_info(messages)")}
        self.daily = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'session_daily_usage'").fetchone()

    def prompt(self, text):
        h = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.db.execute("INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)", (h, text))
        return h

    def session(self, sid, source, at, **cols):
        if "model_config" in cols and isinstance(cols["model_config"], dict):
            cols["model_config"] = pyjson(cols["model_config"])
        if "system_prompt" in cols:
            cols["system_prompt_hash"] = self.prompt(cols.pop("system_prompt"))
        cols = {"id": sid, "source": source, "started_at": at, "profile_name": self.profile, **cols}
        names = ", ".join(cols)
        self.db.execute(f"INSERT INTO sessions({names}) VALUES ({', '.join('?' for _ in cols)})", tuple(cols.values()))

    def msg(self, sid, role, content, at, **cols):
        if isinstance(content, (list, dict)):
            content = MARKER + pyjson(content)
        calls = cols.get("tool_calls")
        if isinstance(calls, list):
            cols["tool_calls"] = pyjson(calls)
        for k in ("reasoning_details", "codex_reasoning_items", "display_metadata"):
            if k in cols and not isinstance(cols[k], str):
                cols[k] = pyjson(cols[k])
        if self.identity:
            cols.setdefault("message_uid", uid(sid, at, role))
            if isinstance(calls, list):
                cols["tool_call_uids"] = pyjson({c["id"]: uid(c["id"]) for c in calls})
            if role == "tool" and cols.get("tool_call_id"):
                cols["tool_call_uid"] = uid(cols["tool_call_id"])
        cols = {"session_id": sid, "role": role, "content": content, "timestamp": at, **cols}
        names = ", ".join(cols)
        self.db.execute(f"INSERT INTO messages({names}) VALUES ({', '.join('?' for _ in cols)})", tuple(cols.values()))
        self.db.execute(
            "UPDATE sessions SET message_count = message_count + 1, tool_call_count = tool_call_count + ?, "
            "last_activity_at = ? WHERE id = ?",
            (len(calls) if isinstance(calls, list) else 0, at, sid),
        )

    def usage(self, sid, model, provider, inp, out, cost, at, task="", calls=1, cache_read=0, reasoning=0):
        """update_token_counts (main loop, task '') or record_auxiliary_usage (a task: only the per-route row)."""
        url = f"https://{provider}.example/v1"
        if task:
            self.db.execute(
                "INSERT INTO session_model_usage(session_id, model, billing_provider, billing_base_url, billing_mode, "
                "task, api_call_count, input_tokens, output_tokens, estimated_cost_usd, first_seen, last_seen) "
                "VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?)",
                (sid, model, provider, url, task, calls, inp, out, cost, at, at),
            )
            return
        self.db.execute(
            "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
            "cache_read_tokens = cache_read_tokens + ?, reasoning_tokens = reasoning_tokens + ?, "
            "estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + ?, api_call_count = api_call_count + ?, "
            "cost_status = 'estimated', cost_source = 'pricing', billing_provider = COALESCE(billing_provider, ?), "
            "billing_base_url = COALESCE(billing_base_url, ?), billing_mode = COALESCE(billing_mode, 'api'), "
            "model = COALESCE(model, ?) WHERE id = ?",
            (inp, out, cache_read, reasoning, cost, calls, provider, url, model, sid),
        )
        self.db.execute(
            "INSERT INTO session_model_usage(session_id, model, billing_provider, billing_base_url, billing_mode, task, "
            "api_call_count, input_tokens, output_tokens, cache_read_tokens, reasoning_tokens, estimated_cost_usd, "
            "cost_status, cost_source, first_seen, last_seen) VALUES (?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?, ?, "
            "'estimated', 'pricing', ?, ?)",
            (sid, model, provider, url, task, calls, inp, out, cache_read, reasoning, cost, at, at),
        )
        if self.daily:  # upstream upserts the activity day of each report (date of `at` here, not of today)
            self.db.execute(
                "INSERT INTO session_daily_usage(session_id, day, input_tokens, output_tokens, cache_read_tokens, "
                "reasoning_tokens, estimated_cost_usd, api_call_count) VALUES (?, date(?, 'unixepoch'), ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(session_id, day) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens, "
                "output_tokens = output_tokens + excluded.output_tokens, "
                "cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, "
                "reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, "
                "estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd, "
                "api_call_count = api_call_count + excluded.api_call_count",
                (sid, at, inp, out, cache_read, reasoning, cost, calls),
            )

    def end(self, sid, reason, at):
        self.db.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL", (at, reason, sid)
        )


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def fill_default(w: Writer):
    sid = "20251201_090000_a1b2c3"
    w.session(sid, "cli", T0, model="anthropic/claude-sonnet-4", model_config={"reasoning_effort": "medium"},
              system_prompt="You are Hermes. Be brief and exact.", cwd="/home/ada/house", title="Heater repair plan",
              title_source="user", pinned=1)
    w.msg(sid, "user", "My boiler pressure keeps dropping below one bar", T0 + 1)
    w.msg(sid, "assistant", "Let me check the manual for that model.", T0 + 2, finish_reason="tool_calls",
          reasoning="The user has a pressure loss; a leak or the expansion vessel are likely.",
          reasoning_details=[{"type": "reasoning.text", "text": "pressure loss: leak or expansion vessel"}],
          tool_calls=[call("call_h1", "web_search", {"query": "boiler pressure drops below 1 bar"}),
                      call("call_h2", "read_file", {"path": "/home/ada/house/boiler-manual.txt"})])
    w.msg(sid, "tool", "Top result: check the expansion vessel charge (0.75 bar) and the relief valve.", T0 + 3,
          tool_call_id="call_h1", tool_name="web_search")
    w.msg(sid, "tool", "Manual p.12: refill to 1.5 bar via the filling loop." + " pad" * 3000, T0 + 4,
          tool_call_id="call_h2", tool_name="read_file")
    # Model-facing scaffolding upstream marks hidden: no client paints it, search and previews skip it.
    w.msg(sid, "user", "[System: checkpoint scaffolding for the interrupted turn]", T0 + 4.5, display_kind="hidden",
          api_content="[This response was interrupted by a user correction.]")
    w.msg(sid, "assistant", "Refill to 1.5 bar with the filling loop, then check the expansion vessel charge.",
          T0 + 5, finish_reason="stop", api_content="Refill to 1.5 bar with the filling loop (api bytes).")
    w.msg(sid, "user", "数据库的索引需要重建 — and the boiler log too", T0 + 6)
    w.msg(sid, "assistant", "重建索引之前先备份。", T0 + 7, finish_reason="stop")
    w.usage(sid, "anthropic/claude-sonnet-4", "anthropic", 4200, 610, 0.0213, T0 + 5, calls=2, cache_read=1800,
            reasoning=120)
    w.usage(sid, "openai/gpt-4o-mini", "openrouter", 900, 40, 0.0002, T0 + 6, task="title_generation")

    # Delegate child (subagent run) of the heater session, with its async_delegations row.
    child = "20251201_090010_d3e4f5"
    w.session(child, "subagent", T0 + 10, parent_session_id=sid, model="openai/gpt-4o-mini",
              model_config={"_delegate_from": sid}, cwd="/home/ada/house")
    # upstream runs a delegate child with the delegation's goal as its user message (run_conversation(user_message=
    # goal)): the child's first user row IS the goal its async_delegations row records, the only link the row keeps
    goal = "Find the expansion vessel pre-charge for a Vaillant ecoTEC"
    w.msg(child, "user", goal, T0 + 11)
    w.msg(child, "assistant", "The ecoTEC plus expansion vessel pre-charge is 0.75 bar.", T0 + 12,
          finish_reason="stop")
    w.usage(child, "openai/gpt-4o-mini", "openrouter", 700, 60, 0.0003, T0 + 12)
    w.end(child, "subagent_complete", T0 + 13)
    w.db.execute(
        "INSERT INTO async_delegations(delegation_id, origin_session, origin_ui_session_id, parent_session_id, state, "
        "dispatched_at, completed_at, updated_at, event_json, result_json, delivery_state, delivery_attempts, "
        "delivered_at, task_json, origin_session_id) VALUES (?, ?, '', ?, 'completed', ?, ?, ?, ?, ?, 'delivered', 1, "
        "?, ?, ?)",
        ("dlg_7f3a", sid, sid, T0 + 10, T0 + 13, T0 + 14,
         # event/result as upstream's delegation tool records them (the v21 golden async-delegations shows the shape)
         pyjson({"type": "async_delegation", "delegation_id": "dlg_7f3a", "session_key": "",
                 "origin_ui_session_id": "", "parent_session_id": sid,
                 "goal": goal, "context": None, "toolsets": ["web"], "role": "leaf",
                 "model": "openai/gpt-4o-mini", "status": "completed", "summary": "pre-charge is 0.75 bar",
                 "error": None, "api_calls": 1}),
         pyjson({"status": "completed", "summary": "pre-charge is 0.75 bar", "error": None, "api_calls": 1,
                 "model": "openai/gpt-4o-mini"}), T0 + 14,
         pyjson({"goal": goal, "toolsets": ["web"]}), sid),
    )
    w.msg(sid, "user", "[Background task dlg_7f3a finished] pre-charge is 0.75 bar", T0 + 14,
          display_kind="async_delegation_complete",
          display_metadata={"delegation_id": "dlg_7f3a", "delivery_notice": True})

    # Gateway (telegram) session with multimodal user content, llm title, archived.
    tg = "20251202_101500_0a0b0c"
    w.session(tg, "telegram", T0 + 86400, user_id="tg:4242", session_key="agent:main:telegram:dm:4242",
              chat_id="4242", chat_type="dm", display_name="Ada", model="openai/gpt-4o",
              origin_json=pyjson({"platform": "telegram", "chat_id": "4242"}), title="Garden shed photo",
              title_source="llm", archived=1)
    w.msg(tg, "user", [{"type": "text", "text": "What kind of wood is this shed made of?"},
                       {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}],
          T0 + 86401, platform_message_id="tg-msg-881")
    w.msg(tg, "assistant", "It looks like pressure-treated pine.", T0 + 86402, finish_reason="stop")
    w.usage(tg, "openai/gpt-4o", "openai", 1500, 30, 0.0041, T0 + 86402)
    w.end(tg, "session_reset", T0 + 90000)

    # Compression chain: root ended by compression, continuation carries the summary and the tail.
    root = "20251203_080000_c0ffee"
    tip = "20251203_093000_c0ffef"
    cfg = {"reasoning_effort": "low"}
    w.session(root, "tui", T0 + 2 * 86400, model="anthropic/claude-sonnet-4", model_config=cfg,
              title="Tax return checklist", title_source="derived", cwd="/home/ada/tax")
    for i in range(6):
        w.msg(root, "user" if i % 2 == 0 else "assistant", f"tax step {i}: gather the receipts for quarter {i}",
              T0 + 2 * 86400 + i)
    w.usage(root, "anthropic/claude-sonnet-4", "anthropic", 9000, 900, 0.04, T0 + 2 * 86400 + 6)
    w.usage(root, "anthropic/claude-sonnet-4", "anthropic", 3000, 400, 0.011, T0 + 2 * 86400 + 7, task="compression")
    w.end(root, "compression", T0 + 2 * 86400 + 100)
    w.session(tip, "tui", T0 + 2 * 86400 + 100, parent_session_id=root, model="anthropic/claude-sonnet-4",
              model_config=cfg, cwd="/home/ada/tax", title="Tax return checklist #2", title_source="derived")
    w.msg(tip, "user", "[CONTEXT COMPACTION] Earlier turns gathered receipts for quarters 0-5.", T0 + 2 * 86400 + 101,
          _compressed_summary=1)
    w.msg(tip, "user", "Now file the quarterly VAT return", T0 + 2 * 86400 + 102)
    w.msg(tip, "assistant", "Filed. The VAT return reference is Q4-2025-118.", T0 + 2 * 86400 + 103,
          finish_reason="stop")

    # A /branch child of the heater session (user-visible), and a hidden internal session.
    br = "20251201_120000_b4a9c1"
    w.session(br, "cli", T0 + 3 * 3600, parent_session_id=sid, model="anthropic/claude-sonnet-4",
              model_config={"reasoning_effort": "medium", "_branched_from": sid}, title="Heater repair plan (branch)",
              title_source="branch")
    w.msg(br, "user", "Alternative: replace the expansion vessel entirely?", T0 + 3 * 3600 + 1)
    hid = "20251201_130000_hidden"
    w.session(hid, "tool", T0 + 4 * 3600, hidden=1)
    w.msg(hid, "user", "internal tool session transcript", T0 + 4 * 3600 + 1)


def fill_work(w: Writer):
    cron = "20251204_060000_cr0n01"
    w.session(cron, "cron", T0 + 3 * 86400, model="openai/gpt-4o-mini", title="Daily standup digest",
              title_source="derived")
    w.msg(cron, "user", "Summarise yesterday's merged pull requests", T0 + 3 * 86400 + 1)
    w.msg(cron, "assistant", "Three PRs merged: invoice export, retry budget, dark mode.", T0 + 3 * 86400 + 2,
          finish_reason="stop")
    w.usage(cron, "openai/gpt-4o-mini", "openai", 2200, 120, 0.0006, T0 + 3 * 86400 + 2)
    w.end(cron, "cron_complete", T0 + 3 * 86400 + 3)

    api = "20251204_101010_ap1ap1"
    w.session(api, "api_server", T0 + 3 * 86400 + 3600, model="openai/gpt-5", session_key="api:team-dash",
              title="Quarterly budget memo", title_source="user",
              system_prompt="You are Hermes for the work profile. Use British spelling.")
    w.msg(api, "user", "Draft the quarterly budget memo", T0 + 3 * 86400 + 3601)
    w.msg(api, "assistant", None, T0 + 3 * 86400 + 3602, finish_reason="tool_calls",
          reasoning_content="Need the spreadsheet totals first.",
          codex_reasoning_items=[{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text",
                                                                                  "text": "fetch totals"}]}],
          tool_calls=[call("call_w1", "execute_code", {"code": "print(sum([1200, 3400, 560]))"})])
    w.msg(api, "tool", "5160", T0 + 3 * 86400 + 3603, tool_call_id="call_w1", tool_name="execute_code")
    w.msg(api, "assistant", "Memo: total spend this quarter is £5,160, within the budget.", T0 + 3 * 86400 + 3604,
          finish_reason="stop")
    w.usage(api, "openai/gpt-5", "openai", 5100, 700, 0.052, T0 + 3 * 86400 + 3604, calls=2, reasoning=300)


    # Untitled desktop session whose first user row is hidden scaffolding: the preview is the next user message.
    desk = "20251205_140000_de5k01"
    w.session(desk, "desktop", T0 + 4 * 86400 + 18000, model="openai/gpt-5")
    w.msg(desk, "user", "[System: checkpoint scaffolding before the first turn]", T0 + 4 * 86400 + 18001,
          display_kind="hidden")
    w.msg(desk, "user", "Plan the team offsite in Lisbon", T0 + 4 * 86400 + 18002)
    w.msg(desk, "assistant", "Three venues near Alfama fit twelve people.", T0 + 4 * 86400 + 18003,
          finish_reason="stop")


    # api_content, the exact bytes upstream sent the model when they differ from the clean content: a user turn with
    # injected memory, and a reasoning-only clean stop whose promoted reply lives only there (content "").
    side = "20251205_170000_apic01"
    w.session(side, "desktop", T0 + 4 * 86400 + 28800, model="openai/gpt-5", title="Quick sums",
              title_source="llm")
    w.msg(side, "user", "What is 2+2?", T0 + 4 * 86400 + 28801,
          api_content="What is 2+2?\n\n[memory: the user prefers one-word answers]")
    w.msg(side, "assistant", "", T0 + 4 * 86400 + 28802, finish_reason="stop", reasoning="2+2 is 4.",
          api_content="Four.")
    # Sessions no person had, which upstream's human session lists leave out: a kanban worker and a one-shot run.
    kb = "20251205_150000_kanb01"
    w.session(kb, "kanban", T0 + 4 * 86400 + 21600, model="openai/gpt-4o-mini")
    w.msg(kb, "user", "Work card #12: rotate the staging credentials", T0 + 4 * 86400 + 21601)
    w.msg(kb, "assistant", "Card #12 done.", T0 + 4 * 86400 + 21602, finish_reason="stop")
    w.end(kb, "kanban_complete", T0 + 4 * 86400 + 21603)
    one = "20251205_160000_one001"
    w.session(one, "oneshot", T0 + 4 * 86400 + 25200, model="openai/gpt-4o-mini")
    w.msg(one, "user", "Summarise README.md in one line", T0 + 4 * 86400 + 25201)
    w.msg(one, "assistant", "A desktop dashboard for Hermes.", T0 + 4 * 86400 + 25202, finish_reason="stop")


def main():
    homes = [(OUT / "state.db", "default", True, fill_default), (OUT / "profiles" / "work" / "state.db", "work",
                                                                 False, fill_work)]
    for path, profile, cjk, fill in homes:
        db = create_db(path, cjk)
        db.execute("BEGIN IMMEDIATE")
        fill(Writer(db, profile))
        db.execute("COMMIT")
        assert db.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)") is not None
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("VACUUM")
        db.close()
        if cjk:
            name_cjk_tokenizer(path)
        print(f"wrote {path.relative_to(OUT.parents[3])}")


if __name__ == "__main__":
    main()
