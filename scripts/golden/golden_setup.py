"""The setup the golden scripts share: a temp HERMES_HOME with upstream's checkout importable, temp folders that go
when the script ends (so a generator leaves nothing in /tmp), a home's files, the cron clock held still, a scripted
OpenAI-compatible provider (its handler's frame, its stream events) and a home that uses it, upstream's API server
on a free port (and a recording made through it), a built source database, a session's stored rows, a tool call
stored as upstream's executor stores it, a tools' workspace and its rows fixture, and the golden JSON file written
the one way the fixtures are.

Imported by the scripts next to it, as upstream_cli.py is (this folder is on sys.path when one runs).
"""
import atexit
import json
import os
import shutil
import socket
import sqlite3
import sys
import tempfile
import threading
from contextlib import asynccontextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit  # also keeps Python from writing bytecode here


def temp_dir(prefix: str) -> Path:
    """A new folder under the temp dir, removed when the script exits (a generator that fails leaves nothing either)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def upstream_home(prefix: str = "golden-hermes-") -> Path:
    """A fresh HERMES_HOME (a temp_dir) and upstream's checkout first on sys.path: set before importing upstream,
    whose modules read the home when they load."""
    home = temp_dir(prefix)
    os.environ["HERMES_HOME"] = str(home)
    sys.path.insert(0, UPSTREAM)
    return home


def text_of(content, sep: str = "\n") -> str:
    """What a request's message says: its content, or the text parts of a multimodal content list joined by `sep`."""
    if isinstance(content, list):
        return sep.join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


class ScriptedProvider(BaseHTTPRequestHandler):
    """The frame of a scripted provider's handler: quiet, lists the one model MODEL on a GET (/v1/models), and
    `_send` answers a whole body; a script's subclass scripts do_POST."""
    MODEL = "m"

    def log_message(self, *_):
        pass

    def do_GET(self):
        self._send("application/json", json.dumps({"object": "list", "data": [{"id": self.MODEL, "object": "model"}]})
                   .encode())

    def _send(self, kind, data):
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_completion(self, message: dict, finish: str, usage: dict):
        """A whole (not streamed) chat.completion of `message`."""
        self._send("application/json", json.dumps({
            "id": "c", "object": "chat.completion", "created": 1, "model": self.MODEL, "usage": usage,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }).encode())

    def _start_stream(self):
        """The head of an event stream written as it goes (its end closes the connection)."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()

    def _event(self, delta: dict, finish=None, extra=None) -> bytes:
        """One event of that stream (sse_chunk)."""
        return sse_chunk(self.MODEL, delta, finish, extra, chunk_id="c", created=1)


def serve_provider(handler):
    """A scripted OpenAI-compatible provider (`handler`, a BaseHTTPRequestHandler) on a free 127.0.0.1 port, served
    from a daemon thread: (the server, its /v1 base URL)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def provider_home(base_url: str, model: str = "m", toolsets: str = "  api_server: []\n") -> Path:
    """An upstream_home whose config.yaml runs `model` on the scripted provider at `base_url` (a custom endpoint,
    the key in the environment) with the given platform_toolsets lines."""
    home = upstream_home()
    os.environ["OPENAI_API_KEY"] = "sk-golden"
    (home / "config.yaml").write_text(
        f"model:\n  default: {model}\n  provider: custom\n  base_url: {base_url}\nplatform_toolsets:\n{toolsets}")
    return home


def write_files(root: Path, files: dict) -> None:
    """Each `relative path: text` written under `root`, its folders made: a home's scripts, skills and config."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def freeze_cron_clock(iso: str) -> datetime:
    """Upstream's cron reads "now" through cron.jobs._hermes_now: pin it to `iso` in the home's zone (local time when
    the home names none) and return that moment."""
    import hermes_time
    from cron import jobs

    dt = datetime.fromisoformat(iso).astimezone(hermes_time.get_timezone())
    jobs._hermes_now = lambda: dt
    return dt


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@asynccontextmanager
async def upstream_api_server(key: str, agent=None, **extra):
    """Upstream's own APIServerAdapter, connected on a free 127.0.0.1 port: yields (port, adapter). `agent` replaces
    the agent it builds (as upstream's tests patch _create_agent); `extra` joins the platform's settings."""
    from aiohttp import web
    from gateway.config import PlatformConfig
    from gateway.platforms.api_server import APIServerAdapter

    # Upstream refuses a request with `if auth_err: return auth_err`. Debian's aiohttp (3.8) makes a fresh
    # web.Response falsy (an empty MutableMapping), so under it every auth check would pass; the aiohttp upstream
    # pins (pyproject.toml: 3.14.1) answers True (aio-libs/aiohttp#10119). Run it under the semantics it pins.
    web.StreamResponse.__bool__ = lambda self: True
    os.environ.pop("API_SERVER_KEY", None)  # the key it checks is `key`
    port = free_port()
    adapter = APIServerAdapter(PlatformConfig(enabled=True, extra={"key": key, "host": "127.0.0.1", "port": port,
                                                                   **extra}))
    if agent is not None:
        adapter._create_agent = lambda **kw: agent(**kw)
    if not await adapter.connect():
        raise SystemExit("upstream's API server did not start")
    try:
        yield port, adapter
    finally:
        await adapter.disconnect()


def record_api_server(handler, key: str, record, toolsets: str = "  api_server: []\n"):
    """What `await record(port, home)` returns, asked of upstream's API server (upstream_api_server, `key`) in a
    provider_home whose model is the scripted provider `handler` (serve_provider), shut down after."""
    import asyncio

    provider, base_url = serve_provider(handler)
    home = provider_home(base_url, toolsets=toolsets)

    async def run():
        async with upstream_api_server(key) as (port, _):
            return await record(port, home)

    try:
        return asyncio.run(run())
    finally:
        provider.shutdown()


def sse_chunk(model: str, delta: dict, finish=None, extra=None, chunk_id="chatcmpl-1", created=1767225600) -> bytes:
    """One `data:` event of an OpenAI-compatible stream, as a scripted provider sends it (`extra`: its other keys,
    such as usage)."""
    c = {"id": chunk_id, "object": "chat.completion.chunk", "created": created, "model": model,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **(extra or {})}
    return b"data: " + json.dumps(c).encode() + b"\n\n"


def message_rows(db_path, session_id: str) -> list:
    """The session's messages as state.db stores them (the columns a turn writes), tool_calls parsed."""
    con = sqlite3.connect(db_path)
    con.row_factory = sqlite3.Row
    rows = [dict(r) for r in con.execute(
        "SELECT role, content, tool_calls, tool_call_id, tool_name, timestamp, finish_reason FROM messages"
        " WHERE session_id = ? ORDER BY id", (session_id,))]
    con.close()
    for r in rows:
        if r["tool_calls"]:
            r["tool_calls"] = json.loads(r["tool_calls"])
    return rows


def tool_workspace(name: str) -> Path:
    """A scratch workspace at a fixed path under the temp dir (`name`), emptied now with its src/ made and removed at
    exit; the tools run there (TERMINAL_CWD and the cwd), and rows_json replaces its path with a placeholder."""
    work = Path(tempfile.gettempdir()) / name
    shutil.rmtree(work, ignore_errors=True)
    (work / "src").mkdir(parents=True)
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    os.environ["TERMINAL_CWD"] = str(work)
    os.chdir(work)
    return work


def write_rows_json(out_dir: Path, db_path, session_id: str, work: Path) -> None:
    """A tool-results fixture: the session's message_rows as out_dir/rows.json, `work` written as /home/user/project
    so the data does not depend on where it was generated."""
    rows = message_rows(db_path, session_id)
    text = json.dumps({"session": session_id, "rows": rows}, indent=2, ensure_ascii=False) + "\n"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "rows.json").write_text(text.replace(str(work), "/home/user/project"))
    print(f"wrote {len(rows)} rows to {out_dir / 'rows.json'}")


def store_tool_call(db, session_id: str, name: str, args: dict, call_id: str, result: str, at: float, took=1):
    """One tool call and its result as upstream's executor stores them through `db` (a SessionDB): the assistant's
    tool_calls row at `at`, then the result as make_tool_result_message wraps it, `took` seconds later."""
    from agent.tool_dispatch_helpers import make_tool_result_message

    call = {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
    db.append_message(session_id, "assistant", content=None, tool_calls=[call], finish_reason="tool_calls",
                      timestamp=at)
    msg = make_tool_result_message(name, result, call_id)
    db.append_message(session_id, "tool", content=msg["content"], tool_name=msg["tool_name"],
                      tool_call_id=msg["tool_call_id"], timestamp=at + took)


def built_db(build, copy_to: Path) -> Path:
    """A state.db `build(path)` writes into a new temp_dir, copied to `copy_to` (a fixture's home.db): the built file,
    beside which the script keeps its other scratch databases."""
    db = temp_dir("golden-db-") / "state.db"
    build(db)
    copy_to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(db, copy_to)
    return db


def write_golden(path: Path, script: str, fields: dict) -> None:
    """The golden file: the upstream commit and the script that wrote it, then `fields`, as indented UTF-8 JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"upstreamCommit": upstream_commit(), "script": script, **fields},
                               indent=1, ensure_ascii=False) + "\n")
