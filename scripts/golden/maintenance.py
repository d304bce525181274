#!/usr/bin/env python3
"""Golden data: upstream's own maintenance run on a home Caduceus wrote (its cad_ tables and per-day usage filled).

Run with the system Python: /usr/bin/python3 scripts/golden/maintenance.py  (HERMES_UPSTREAM defaults to
/work/upstream; Caduceus's steps run this worktree's `node bin/caduceus.mjs` and `npx tsx`).

1. Caduceus writes the home: `caduceus sessions import` of three ended sessions (CJK + emoji text; two started in
   2020, one in 2096 so no prune selects it), then `SessionStore.recordUsage` on each with a fixed day.
2. Upstream maintains it: `hermes sessions prune --yes` (its default 90-day cutoff), then `SessionDB.vacuum()`.
Writes test/fixtures/upstream/maintenance/pruned.db and upstream-view.json (what upstream sees afterwards).
3. A desk chat whose agent delegates (resume_loop.py's scripted provider and resume-caduceus.ts), its child
   retained; upstream's `hermes sessions delete <parent> --yes` removes parent and child: delegated.db.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "maintenance"
T2020, T2096 = 1577880000.0, 4000000000.0
SESSIONS = [("old-a", T2020, "天气 alpha 🚀", "晴天 reply"), ("old-b", T2020, "天气 beta 🚀", "晴天 reply"),
            ("keep-c", T2096, "天气 gamma 🚀", "晴天 reply")]
USAGE = """
import { SessionStore } from './src-main/store'
const s = new SessionStore(process.argv[2], { profile: 'default' })
const u = { model: 'm', provider: 'p', baseUrl: '', inputTokens: 100, outputTokens: 10, cacheReadTokens: 0,
  cacheWriteTokens: 0, reasoningTokens: 0, apiCalls: 1, costUsd: 1, costStatus: 'estimated' as const }
;(async () => { for (const id of ['old-a', 'old-b', 'keep-c']) await s.recordUsage(id, u, { day: '2026-01-02' }); s.close() })()
"""


def delegation_home():
    import threading
    from http.server import ThreadingHTTPServer
    import resume_loop as rl
    server = ThreadingHTTPServer(("127.0.0.1", 0), rl.Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = Path(tempfile.mkdtemp(prefix="cad-maint-deleg-"))
    try:
        rl.caduceus_config(home, f"http://127.0.0.1:{server.server_address[1]}/v1")
        rl.STATE["phase"] = "write-caduceus"
        env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(home / "logs")}
        case = [{"key": "delegate", "text": rl.CASES["delegate"][0], "turns": 2}]
        run = subprocess.run(["npx", "tsx", str(ROOT / "scripts" / "golden" / "resume-caduceus.ts"), str(home),
                              json.dumps(case)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            raise SystemExit(f"caduceus writer failed:\n{run.stderr[-4000:]}")
        parent = json.loads(run.stdout.strip().splitlines()[-1])["delegate"]
        print(hermes(home, "sessions", "delete", parent, "--yes").stdout.strip())
        c = sqlite3.connect(home / "state.db")
        facts = {"parent": parent, "sessions_left": c.execute("SELECT COUNT(*) FROM sessions").fetchone()[0],
                 "retained_rows": c.execute("SELECT COUNT(*) FROM async_delegations WHERE retained = 1").fetchone()[0]}
        c.close()
        shutil.copyfile(home / "state.db", OUT / "delegated.db")
        return facts
    finally:
        server.shutdown()
        shutil.rmtree(home, ignore_errors=True)


def main():
    home = Path(tempfile.mkdtemp(prefix="cad-maint-"))
    try:
        lines = [json.dumps({"id": sid, "source": "cli", "model": "m", "title": sid, "started_at": t, "ended_at": t + 60,
                             "end_reason": "done", "messages": [{"role": "user", "content": u, "timestamp": t},
                                                                {"role": "assistant", "content": a, "timestamp": t + 1}]},
                            ensure_ascii=False) for sid, t, u, a in SESSIONS]
        (home / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(home / "logs")}
        subprocess.run(["node", "bin/caduceus.mjs", "sessions", "import", str(home / "in.jsonl"), "--home", str(home)],
                       cwd=ROOT, env=env, check=True, capture_output=True)
        script = ROOT / ".maint-usage.ts"
        script.write_text(USAGE, encoding="utf-8")
        try:
            subprocess.run(["npx", "tsx", str(script), str(home / "state.db")], cwd=ROOT, env=env, check=True)
        finally:
            script.unlink()
        print(hermes(home, "sessions", "prune", "--yes").stdout.strip())
        sys.path.insert(0, UPSTREAM)
        from hermes_state import SessionDB
        db = SessionDB(home / "state.db")
        db.vacuum()
        db.close()
        c = sqlite3.connect(home / "state.db")
        fts = {}
        for (t,) in c.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"):
            try:
                c.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')")
                fts[t] = "ok"
            except sqlite3.DatabaseError as e:
                fts[t] = str(e)
        view = {"upstream_commit": upstream_commit(), "integrity": c.execute("PRAGMA integrity_check").fetchone()[0],
                "fts": fts, "sessions": [r[0] for r in c.execute("SELECT id FROM sessions ORDER BY id")],
                "daily_rows_left": c.execute("SELECT COUNT(*) FROM session_daily_usage").fetchone()[0]}
        c.close()
        OUT.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(home / "state.db", OUT / "pruned.db")
        view["delegation"] = delegation_home()
        (OUT / "upstream-view.json").write_text(json.dumps(view, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(json.dumps(view, ensure_ascii=False))
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
