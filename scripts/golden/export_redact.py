#!/usr/bin/env python3
"""Golden `sessions export --redact` masking: each input string as upstream's export writes it.

Usage: /usr/bin/python3 scripts/golden/export_redact.py
Env: HERMES_UPSTREAM (default /work/upstream) is the upstream checkout to import.
Upstream's `--redact` passes every string of a record's `messages` and `segments` (keys left alone) through its
forced secret masking (hermes_cli/session_export_md.py redact_session_data). This runs that very function on a
one-message session per input, so the table is what the export writes, not a reading of the regexes.
Writes test/fixtures/upstream/export-redact/cases.json: {"upstreamCommit", "cases": [[input, output], ...],
"record": [input record, output record]}.
"""
import json
import os
import sys
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "export-redact"

LONG = "abcdefghijklmnopqrstuvwxyz0123456789"
INPUTS = [
    # the shapes the audit compared (scratch mdexport/redact_cases.sh)
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
    "AKIAIOSFODNN7EXAMPLE",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.abcdefghijklmnop",
    "postgres://admin:hunter2pass@db.example.com:5432/app",
    "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx",
    "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
    'password: "correct horse battery staple"',
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-abcdefgh",
    "https://user:pa55word@example.com/path?token=abcdef1234567890abcdef",
    '{"api_key": "abcd1234efgh5678ijkl9012"}',
    # vendor prefixes: length floors, neighbours, short tokens (fully masked under 18 characters)
    "key sk-abcdefghij end",
    "key sk-abcdefghi end",
    "xsk-abcdefghijklmnop",
    "sk-abcdefghijklmnop-",
    "sk-abcdefghijklmnop.",
    "(sk-abcdefghijklmnopqrstu)",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "gho_abcdefghij ghu_abcdefghijkl ghs_abcdefghijklmno ghr_abcdefghijklmnopqrs",
    "xapp-1-A0123456789-abcdefghij",
    "xoxp-1234567890 xoxa-12345 xoxr-abcdefghijkl xoxs-abcdefghijklmn",
    "AIzaShort",
    "pplx-abcdefghijklmnop fal_abcdefghij-_xyz fc-abcdefghijkl bb_live_abcdefghij_-",
    "gAAAAABcdefghijklmnopqrstuv== gAAAAshort",
    "AKIAIOSFODNN7EXAMPL AKIAIOSFODNN7EXAMPLEX akiaiosfodnn7example",
    "sk_live_abcdefghij sk_test_abcdefghijklmnop rk_live_abcdefghijklmnopqrst",
    "SG.abcdefghij-_.klmnopqrstuvwxyz",
    "r8_abcdefghijkl npm_abcdefghijklmnopqrstuvwxyz pypi-AgEIcHlwaS5vcmcABCDEF",
    "dop_v1_abcdefghijklmnopqrstuvwxyz doo_v1_abcdefghij",
    "am_abcdefghij sk_abcdefghijklmnopqrstu tvly-abcdefghijklmnop exa_abcdefghijklmnop",
    "gsk_" + LONG + " syt_abcdefghij retaindb_abcdefghijk hsk-abcdefghijkl mem0_abcdefghijklmn brv_abcdefghij",
    "xai-" + LONG + " xai-short123456 ntn_abcdefghijklmnop",
    "fw-" + LONG + " fw_" + LONG + " fpk_" + LONG + " fw-short1234567890",
    "sk-é" + LONG,
    "naïve sk-" + LONG + "ü",
    "emoji 🔑 sk-" + LONG + " 🔑",
    "sk-abcdefghijklmnopq\U0001F511rstuvwxyz0123",
    # KEY=value assignments (upper case), code lookups, quotes
    "export GITHUB_TOKEN=ghp_" + LONG,
    "MY_SERVICE_TOKEN=abc123randomstring",
    "DB_PASSWORD = 'hunter2'",
    'AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "MAX_TOKENS=4096",
    "API_KEY=os.getenv('API_KEY')",
    "TOKEN=process.env.TOKEN",
    "AUTH=$ENV{AUTH}",
    "SECRET=",
    "OPENAI_API_KEY=short",
    "a=1 OPENAI_API_KEY=abcdefghijklmnopqrstuvwxyz b=2",
    "openai_api_key=abcdefghijklmnopqrstuvwxyz",
    # dotted / anchored lowercase config keys
    "spring.datasource.password=supersecretvalue123",
    "app.api.key=xyz123",
    "password=secret",
    "  export api_key=abcdefghijklmnopqrstu",
    "I have password=foo in prose",
    "line one\npassword=multilinesecret99\nline three",
    "app.token='quotedvalue123456789'&next=1",
    "config.secret=abc https://example.com",
    "my.Password.Field=AbCdEfGhIjKlMnOpQrSt",
    "x.auth=abcdefghijklmnopqrstuvwxyz",
    "auth.x=abcdefghijklmnopqrstuvwxyz",
    # YAML / colon config
    "password: hunter2",
    "  api_key: abcdefghijklmnopqrstuvwxyz",
    "note: secret meeting",
    "error: token expired",
    "author: someone",
    "auth_token: abcdefghijklmnopqrstuvwxyz",
    "secret: 'quoted'",
    "token:abcdefghijklmnopqrstuv&x",
    "db_password: hunter2 # see https://example.com",
    "first\nsecret_key: value1234567890abcdefg\nlast",
    "password:\tTabbedValue",
    # JSON fields
    '{"apiKey": "abcdefghijklmnopqrstuvwxyz", "other": "x"}',
    '{"token":"short"}',
    '{"access_token": "ya29.abcdefghijklmnopqrstuvwxyz", "refresh_token": "1//abcdefghijklmnopqrstu"}',
    '{"Password": "CorrectHorseBattery"}',
    '{"api_key": "os.getenv(\'X\')"}',
    '{"key_material": "abc", "bearer": "abcdefghijklmnopqrstuvwxyz"}',
    '{"api_key": ""}',
    "{'api_key': 'singlequotedsecret123'}",
    # Authorization and API-key headers
    "Authorization: Basic dXNlcjpwYXNzd29yZA==",
    "authorization: token ghp_" + LONG,
    "Proxy-Authorization: Digest abcdefghijklmnopqrstuvwxyz",
    'curl -H "Authorization: Bearer sk-' + LONG + '" https://api.example.com',
    "Authorization: opaque",
    "AUTHORIZATION: Bearer abcdefghijklmnopqrstuvwxyz",
    "AuThOrIzAtIoN: Bearer abcdefghijklmnopqrstuvwxyz",
    "x-api-key: customkeyvalue98765",
    "X-Goog-Api-Key:abcdefghijklmnopqrstuvwxyz",
    "api-key: short",
    "x-auth-token: abcdefghijklmnopqrstuvwxyz more",
    # Telegram, private keys, connection strings, URLs
    "bot123456789:AAEhBP0av28mX3zKqWtnJ9dYbW5c6vT7rY1",
    "12345678:AAEhBP0av28mX3zKqWtnJ9dYbW5c6vT7rY1 and more",
    "1234567:AAEhBP0av28mX3zKqWtnJ9dYbW5c6vT7rY1",
    "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY----- tail",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n"
    "-----BEGIN EC PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY-----",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----\nunterminated",
    "mysql://root:rootpw@localhost/db mongodb+srv://u:p%40ss@cluster0.example.net",
    "redis://default:redispass@cache:6379 amqp://guest:guest@rabbit",
    "POSTGRESQL://Admin:Secret@Host/db",
    'f"postgresql://{user}:{password}@{host}/db"',
    "postgres://user:pa ss@host",
    "https://ghtoken12345678@github.com/org/repo.git",
    "git clone https://x-access-token:ghs_abcdefghijklmnopqrstu@github.com/o/r",
    "ssh://git@github.com/org/repo deploy@host",
    "wss://abcdefgh@socket.example.com",
    "https://example.com/cb?code=ABC123&state=xyz",
    "see https://example.com/?q=user@example.com",
    # JWTs
    "eyJhbGciOiJIUzI1NiJ9",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk.extra",
    "eyJshort",
    # form bodies, phone numbers
    "grant_type=client_credentials&client_secret=abc123&scope=read",
    " token=abc&user=bob ",
    "a=1&b=2\nc=3",
    "password=secret&user=bob",
    "call +14155552671 or +4412345",
    "+1234567 +123456 +12345678901234567",
    "id +14155552671abc",
    # no secrets, empties, whitespace oddities
    "",
    "hello world",
    "token_count=123&session_id=abc",
    "\u2028password=abc\u2028",
    "\x1cpassword: hunter2",
    "\u00a0DB_TOKEN=abcdefghijklmnopqrstuvwxyz\u00a0",
    "a\rpassword=carriage",
    "\u017fecret: longsforms",
    "\u212aey: kelvin",
    "api\u212aey: kelvin",
    "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669:AAEhBP0av28mX3zKqWtnJ9dYbW5c6vT7rY1",
    "Authorization: B\u00e9arer abcdefghijklmnopqrstuvwxyz",
    "ap\u0131_key: abcdefghijklmnopqrstuvwxyz",
    "x-ap\u0131-key: abcdefghijklmnopqrstuv",
    "db.passwd\u0130d=abcdefghijklmnopqrstuvwxyz",
    "AUTHOR\u0130ZATION: Bearer abcdefghijklmnopqrstuvwxyz",
    "Author\u0131zation: Bearer abcdefghijklmnopqrstuvwxyz",
    "phone +\U0001D7D9\U0001D7D0\U0001D7D1\U0001D7D2\U0001D7D3\U0001D7D4\U0001D7D5\U0001D7D6 end",
]


def main() -> None:
    sys.path.insert(0, UPSTREAM)
    os.environ.pop("HERMES_REDACT_SECRETS", None)
    from hermes_cli.session_export_md import redact_session_data  # noqa: E402

    cases = []
    for text in INPUTS:
        out = redact_session_data({"id": "s", "messages": [{"role": "user", "content": text}]})
        cases.append([text, out["messages"][0]["content"]])
    # A whole record: only messages and segments are masked, every string in them (tool-call arguments, names,
    # nested values), keys and other types as they were; the rest of the record untouched.
    rec = {
        "id": "sess",
        "title": "OPENAI_API_KEY=abcdefghijklmnopqrstuvwxyz",
        "system_prompt": "sk-" + LONG,
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "function": {"name": "terminal", "arguments": '{"command": "export TOKEN=abcdefghijklmnopqrstuvwxyz"}'},
                    }
                ],
                "token_count": 12,
                "finish_reason": "tool_calls",
                "sk-" + LONG: ["ghp_" + LONG, 3, True, None, {"password": "password: hunter2"}],
            }
        ],
        "segments": [{"id": "seg", "title": "x-api-key: abcdefghijklmnopqrstuvwxyz", "cost": 0.5}],
    }
    record = [rec, redact_session_data(json.loads(json.dumps(rec)))]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cases.json").write_text(
        json.dumps({"upstreamCommit": upstream_commit(), "cases": cases, "record": record}, indent=1, ensure_ascii=False)
        + "\n"
    )
    changed = sum(1 for a, b in cases if a != b)
    print(f"{len(cases)} inputs, {changed} changed by upstream's redaction")


if __name__ == "__main__":
    main()
