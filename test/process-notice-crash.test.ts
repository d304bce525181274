// A finished background process's notice waits for the parent's running turn, and a host killed (SIGKILL) in that
// window must not lose it: a real host child process runs the turn, its process ends while the turn's model call is
// held open, the child is killed, and the next host to start on the home saves the notice into the session (as the
// live path saves it) and runs it as the session's next turn.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptReply } from '../src-main/agent/scripted'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { nodeCmd, waitUntil } from '../src-main/tools/test-fixtures/helpers'
import { serveHost } from './fixtures/serve-host'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  cleanups.push(() => rmSync(d, { recursive: true, force: true }))
  return d
}

function reply(req: RecordedRequest): ScriptReply {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = msgs.at(-1)
  // The parent's turn never gets its final reply: it is still running when its host is killed.
  if (last?.role === 'tool') return { text: 'Started it.', stall: true }
  const text = typeof last?.content === 'string' ? last.content : ''
  if (text.startsWith('[Background process')) return { text: 'The build finished.' }
  return {
    toolCalls: [
      {
        id: 'call_build',
        name: 'terminal',
        arguments: { command: nodeCmd('console.log("BUILD OK")'), background: true, notify_on_complete: true }
      }
    ]
  }
}

type Row = { id: number; role: string; content: string | null; display_kind: string | null; display_metadata: string }

function read<T>(root: string, fn: (db: Database.Database) => T): T {
  const db = new Database(join(root, 'state.db'), { readonly: true })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

const pendingCount = (root: string) =>
  read(root, (db) => {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'cad_pending_notices'").get()
    return has ? (db.prepare('SELECT COUNT(*) AS n FROM cad_pending_notices').get() as { n: number }).n : 0
  })
const rows = (root: string, sessionId: string) =>
  read(root, (db) => db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id').all(sessionId) as Row[])

describe('a background process notice pending when its host is killed', () => {
  it('is saved into the session by the next host to start, and runs as its next turn', async () => {
    const provider = await startScriptedProvider({ handler: reply })
    cleanups.push(() => provider.close())
    const root = tempDir('cad-notice-crash-')
    writeFileSync(
      join(root, 'config.yaml'),
      `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\nterminal:\n  enabled: true\n`
    )
    // An existing state.db: the fixture's host runs with --demo, which fills only an empty root.
    const seed = new SessionStore(join(root, 'state.db'), { profile: 'default' })
    await seed.createSession('seed', 'cli')
    seed.close()

    const child = await serveHost(root, { logDir: tempDir('cad-notice-crash-logs-') })
    cleanups.push(() => child.stop())
    const started = await child.call('sessions.start', { profile: 'default', text: 'build in the background' })
    expect(started.ok).toBe(true)
    const sessionId = started.output.sessionId as string

    // The process has ended and its notice is recorded, while the turn that started it still waits for its reply.
    await waitUntil(() => pendingCount(root) === 1)
    expect(provider.requests.at(-1)?.body?.messages.at(-1)?.role).toBe('tool')
    expect(rows(root, sessionId).some((m) => m.display_kind === 'process_complete')).toBe(false)

    const exited = new Promise((r) => child.child.once('exit', r))
    child.child.kill('SIGKILL')
    await exited // reaped: its pid is gone, so its records are the next host's

    const host = await createHost({ home: root, headless: true, log: createLogger() })
    cleanups.push(() => host.close())
    // The restore starts with the host (its turn may end before createHost returns): the session's rows tell.
    await waitUntil(() => rows(root, sessionId).at(-1)?.content === 'The build finished.')
    const all = rows(root, sessionId)
    const notices = all.filter((m) => m.display_kind === 'process_complete')
    expect(notices).toHaveLength(1)
    const notice = notices[0]!
    expect(notice.role).toBe('user')
    expect(notice.content).toMatch(/^\[Background process proc_[0-9a-f]+ finished: exit code 0\]\nCommand: /)
    expect(notice.content).toContain('BUILD OK')
    expect(JSON.parse(notice.display_metadata)).toMatchObject({ exit_code: 0, delivery_notice: 'completion' })
    // after everything the killed turn wrote, and answered by the turn it started
    expect(all.indexOf(notice)).toBe(all.findIndex((m) => m.role === 'tool') + 1)
    expect(all.at(-1)).toMatchObject({ role: 'assistant', content: 'The build finished.' })
    expect(pendingCount(root)).toBe(0)
  }, 60_000)
})
