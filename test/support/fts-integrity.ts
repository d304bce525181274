/**
 * Upstream's view of a home's FTS indexes, with the system Python's SQLite (3.40 here: the one upstream's own
 * Python indexes with): FTS5's integrity-check on every FTS table, after deleting a session as upstream's
 * delete_session does when `deleteSession` names one. `null` where there is no /usr/bin/python3 (tests skip then).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

export const SYSTEM_PYTHON = '/usr/bin/python3'
export const hasSystemPython = existsSync(SYSTEM_PYTHON)

const CHECK = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
if len(sys.argv) > 2:
    c.execute("DELETE FROM messages WHERE session_id = ?", (sys.argv[2],))
    c.execute("DELETE FROM sessions WHERE id = ?", (sys.argv[2],))
    c.commit()
out = {}
for (t,) in c.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"):
    try:
        c.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')"); out[t] = "ok"
    except sqlite3.DatabaseError as e:
        out[t] = str(e)
print(json.dumps(out))
`

/** FTS table → "ok" or the error upstream's SQLite reports. */
export function ftsIntegrity(dbPath: string, deleteSession?: string): Record<string, string> {
  const args = ['-c', CHECK, dbPath, ...(deleteSession ? [deleteSession] : [])]
  return JSON.parse(execFileSync(SYSTEM_PYTHON, args, { encoding: 'utf8' })) as Record<string, string>
}
