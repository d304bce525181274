// Export → import round trip in upstream's JSONL shape, Markdown, re-import skips, an orphan child detaches,
// delete and prune take FTS rows with them. Through the CLI (`caduceus sessions ...`) and the contract requests: the
// CLI's answers at a prompt (stdin typed, closed, or answered while the home changes) from the built CLI in a process
// of its own, its plain commands through runCli in this process.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { txDb } from '../src-main/store/write-tx'
import { cliInProcess } from './helpers/cli-in-process'

const run = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
const dirs: string[] = []
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cad-transfer-'))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** `caduceus ARGS --home HOME` through runCli in this process: its stdout; a failure throws with its stderr. */
const cli = async (home: string, ...args: string[]) => {
  const r = await cliInProcess(home, ...args)
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`)
  return r.stdout
}
/** The CLI with `reply` typed at its prompt (null: stdin closed, no answer). */
const answering = async (home: string, reply: string | null, ...args: string[]) => {
  const p = run(process.execPath, ['bin/caduceus.mjs', ...args, '--home', home], {
    cwd: repo,
    env: { ...process.env, CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' }
  })
  if (reply !== null) p.child.stdin!.write(reply)
  p.child.stdin!.end()
  const { stdout, stderr } = await p
  return stdout + stderr
}

let source: string
beforeAll(async () => {
  // the environment a child gets below, for the runs in this process (test/support/fresh-file.ts restores it)
  Object.assign(process.env, { CADUCEUS_LOG_DIR: join(tmp(), 'logs'), HERMES_HOME: '' })
  source = tmp()
  const s = new SessionStore(join(source, 'state.db'))
  await s.createSession('root', 'cli', { title: 'Zeppelin plans', systemPrompt: 'You are helpful.' })
  const [, rewound] = await s.appendMessages('root', [
    { role: 'user', content: 'plan the zeppelin route' },
    { role: 'assistant', content: 'an answer the user rewound' },
    {
      role: 'assistant',
      content: 'Route: Friedrichshafen to Lakehurst.',
      toolCalls: [{ id: 'c1', name: 'map', arguments: '{}' }]
    },
    { role: 'tool', content: '{"km": 6000}', toolName: 'map', toolCallId: 'c1' }
  ])
  await s.write((tx) => {
    const db = txDb(tx)
    db.prepare('UPDATE messages SET active = 0 WHERE id = ?').run(rewound)
  })
  await s.endSession('root', 'compression')
  await s.createSession('cont', 'cli', { parentSessionId: 'root' })
  await s.appendMessage('cont', { role: 'user', content: 'continue the zeppelin chat' })
  await s.createSession('old', 'cli')
  await s.appendMessage('old', { role: 'user', content: 'an ancient walrus question', timestamp: 1000 })
  await s.endSession('old', 'cli_close', 1000)
  s.close()
})

describe('sessions export / import', () => {
  it('round-trips upstream JSONL into an empty home (created v30), re-import skips all, Markdown has the shape', async () => {
    const jsonl = await cli(source, 'sessions', 'export', '--format', 'jsonl')
    const lines = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.id).sort()).toEqual(['cont', 'old', 'root'])
    const root = lines.find((l) => l.id === 'root')
    expect(root).toMatchObject({
      source: 'cli',
      title: 'Zeppelin plans',
      end_reason: 'compression',
      message_count: 4,
      system_prompt: 'You are helpful.'
    })
    // upstream's shape: active rows only in `messages`; the rewound one travels where upstream never reads
    expect(root.messages.map((m: { role: string; active: number }) => [m.role, m.active])).toEqual([
      ['user', 1],
      ['assistant', 1],
      ['tool', 1]
    ])
    expect(
      root.caduceus_inactive_messages.map((m: { content: string; active: number }) => [m.content, m.active])
    ).toEqual([['an answer the user rewound', 0]])
    expect(root.messages[1].tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'map', arguments: '{}' } }
    ])
    expect(lines.find((l) => l.id === 'cont').parent_session_id).toBe('root')

    const target = tmp()
    const file = join(target, '..', `import-${Date.now()}.jsonl`)
    writeFileSync(file, jsonl)
    dirs.push(file)
    const summary = JSON.parse(await cli(target, 'sessions', 'import', file, '--json'))
    expect(summary).toEqual({ imported: 3, skipped: 0, detached: 0, errors: [], ignoredFields: {} })
    const db = new Database(join(target, 'state.db'), { readonly: true })
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_version').get()).toEqual({ v: 30 })
    expect(db.prepare("SELECT parent_session_id, message_count, title FROM sessions WHERE id = 'cont'").get()).toEqual({
      parent_session_id: 'root',
      message_count: 1,
      title: null
    })
    expect(
      db
        .prepare(
          "SELECT p.prompt FROM sessions s JOIN system_prompts p ON p.hash = s.system_prompt_hash WHERE s.id = 'root'"
        )
        .get()
    ).toEqual({ prompt: 'You are helpful.' })
    expect(db.prepare("SELECT count(*) AS n FROM messages WHERE session_id = 'root'").get()).toEqual({ n: 4 })
    // the rewound row comes back inactive and still counted, as the session counted it (a rewind leaves the counts)
    expect(db.prepare("SELECT message_count, tool_call_count FROM sessions WHERE id = 'root'").get()).toEqual({
      message_count: root.message_count,
      tool_call_count: root.tool_call_count
    })
    db.close()

    const host = await createHost({
      home: target,
      headless: true,
      live: false,
      validateOutput: true,
      log: createLogger()
    })
    try {
      const found = await host.dispatcher.invoke('sessions.search', { profile: 'default', query: 'zeppelin' })
      expect(
        (found as { output: { hits: Array<{ sessionId: string }> } }).output.hits.map((h) => h.sessionId).sort()
      ).toEqual(['cont', 'root'])
      const again = await host.dispatcher.invoke('sessions.import', { profile: 'default', content: jsonl })
      expect(again).toMatchObject({ ok: true, output: { imported: 0, skipped: 3, detached: 0, errors: [] } })
      // an upstream-shaped line whose parent is nowhere: imported, detached
      const orphan = JSON.stringify({
        id: 'orphan',
        source: 'telegram',
        parent_session_id: 'ghost',
        started_at: 1700000000,
        session_key: 'agent:main:tg:1',
        handoff_state: 'pending',
        messages: [{ id: 99, role: 'user', content: 'orphaned hello', timestamp: 1700000001 }]
      })
      const r = await host.dispatcher.invoke('sessions.import', {
        profile: 'default',
        content: orphan + '\nnot json\n'
      })
      expect(r).toMatchObject({
        ok: true,
        output: {
          imported: 1,
          skipped: 0,
          detached: 1,
          errors: [{ id: 'line 2', line: 2, reason: expect.stringContaining('invalid JSON') }]
        }
      })
      const row = host.stores.get('default').getSession('orphan')!
      expect(row).toMatchObject({ parentSessionId: null, sessionKey: null, handoffState: null, messageCount: 1 })

      const md = await host.dispatcher.invoke('sessions.export', {
        profile: 'default',
        sessionId: 'root',
        format: 'markdown'
      })
      expect(md.ok).toBe(true)
      const out = (md as { output: { filename: string; mime: string; content: string } }).output
      expect(out.filename).toBe('caduceus-default-root.md')
      expect(out.mime).toBe('text/markdown')
      expect(out.content).toMatch(/^# Zeppelin plans\n/)
      expect(out.content).toContain('## user · ')
      expect(out.content).toContain('plan the zeppelin route')
      const prompts = await host.dispatcher.invoke('sessions.export', {
        profile: 'default',
        format: 'jsonl',
        onlyUserPrompts: true
      })
      expect(
        (prompts as { output: { content: string } }).output.content
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).text) // upstream's prompt record: session_id, index, created_at, role, text, …
          .sort()
      ).toEqual([
        'an ancient walrus question',
        'continue the zeppelin chat',
        'orphaned hello',
        'plan the zeppelin route'
      ])
      const lineage = await host.dispatcher.invoke('sessions.export', {
        profile: 'default',
        format: 'jsonl',
        lineage: true
      })
      const merged = (lineage as { output: { content: string } }).output.content
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      const chain = merged.find((l) => l.id === 'cont')
      expect(chain).toMatchObject({ id: 'cont', lineage_session_ids: ['root', 'cont'], message_count: 4 })
      expect(chain.messages).toHaveLength(4)
      expect(merged.map((l) => l.id).sort()).toEqual(['cont', 'old', 'orphan'])
      const bad = await host.dispatcher.invoke('sessions.export', { profile: 'default', format: 'pdf' } as never)
      expect(bad.ok).toBe(false)
    } finally {
      await host.close()
    }
  }, 120_000)
})

describe('sessions delete / prune', () => {
  it('delete removes messages and FTS rows and detaches children; prune removes old ended sessions only', async () => {
    const home = tmp()
    const s = new SessionStore(join(home, 'state.db'))
    await s.createSession('p', 'cli')
    await s.appendMessage('p', { role: 'user', content: 'quokka parent words' })
    await s.createSession('kid', 'cli', { parentSessionId: 'p' })
    await s.appendMessage('kid', { role: 'user', content: 'child words' })
    await s.createSession('stale', 'cli')
    await s.appendMessage('stale', { role: 'user', content: 'platypus stale words', timestamp: 1000 })
    await s.endSession('stale', 'cli_close', 1000)
    await s.write((tx) => {
      const db = txDb(tx)
      db.prepare("UPDATE sessions SET last_activity_at = 1000, started_at = 1000 WHERE id = 'stale'").run()
    })
    s.close()

    // As `hermes sessions delete`: a unique prefix names the session, and nothing goes without a yes
    await expect(cli(home, 'sessions', 'delete', 'st', '--json')).rejects.toThrow(/--json deletes only with --yes/)
    await expect(cli(home, 'sessions', 'delete', 'nope', '--yes')).rejects.toThrow(/Session 'nope' not found/)
    const kept = await answering(home, null, 'sessions', 'delete', 'st')
    expect(kept).toContain("Delete session 'stale' and all its messages? [y/N] \nCancelled.")
    expect(await answering(home, 'n\n', 'sessions', 'delete', 'p')).toContain('Cancelled.')
    expect(await answering(home, 'y\n', 'sessions', 'delete', 'p')).toContain('1 child session(s) detached')
    // Upstream's CLI asks before a prune deletes (--yes skips it): no answer (a script, a cron job) deletes nothing.
    const asked = await answering(home, null, 'sessions', 'prune', '--older-than', '30')
    expect(asked).toContain('1 ended session(s) will be deleted')
    expect(asked).toMatch(/stale .* cli {2}1 msgs/)
    expect(asked).toContain('Delete these 1 session(s)? [y/N] \nCancelled.')
    expect(asked).toContain('No answer on stdin: pass --yes')
    expect(await answering(home, 'yes\n', 'sessions', 'prune', '--older-than', '30')).toContain('Pruned 1 session(s).')
    const db = new Database(join(home, 'state.db'))
    const fts = (w: string) =>
      (db.prepare('SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?').get(w) as { n: number }).n
    const tri = (w: string) =>
      (
        db.prepare('SELECT count(*) AS n FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?').get(w) as {
          n: number
        }
      ).n
    expect([fts('quokka'), fts('platypus'), tri('quokka'), tri('platypus')]).toEqual([0, 0, 0, 0])
    expect(fts('child')).toBe(1)
    expect(db.prepare('SELECT id, parent_session_id FROM sessions ORDER BY id').all()).toEqual([
      { id: 'kid', parent_session_id: null }
    ])
    expect(db.prepare("SELECT count(*) AS n FROM messages WHERE session_id IN ('p', 'stale')").get()).toEqual({ n: 0 })
    db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)").run()
    db.prepare("INSERT INTO messages_fts_trigram(messages_fts_trigram, rank) VALUES('integrity-check', 1)").run()
    db.close()
    expect(existsSync(join(home, 'state.db'))).toBe(true)
  }, 120_000)
  it("prune's yes deletes only the sessions it listed, not one that began to match while it asked", async () => {
    const home = tmp()
    const s = new SessionStore(join(home, 'state.db'))
    for (const id of ['stale', 'late']) {
      await s.createSession(id, 'cli')
      await s.appendMessage(id, { role: 'user', content: `${id} words`, timestamp: 1000 })
    }
    await s.endSession('stale', 'cli_close', 1000)
    await s.write((tx) => {
      txDb(tx).prepare('UPDATE sessions SET last_activity_at = 1000, started_at = 1000').run()
    })
    s.close()
    const p = run(process.execPath, ['bin/caduceus.mjs', 'sessions', 'prune', '--older-than', '30', '--home', home], {
      cwd: repo,
      env: { ...process.env, CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' }
    })
    let out = ''
    await new Promise<void>((asked) =>
      p.child.stdout!.on('data', (d) => {
        out += d
        if (out.includes('[y/N]')) asked()
      })
    )
    expect(out).toContain('1 ended session(s) will be deleted')
    // while the question is open, the running session ends (its upstream closed it): now it matches too
    const db = new Database(join(home, 'state.db'))
    db.prepare("UPDATE sessions SET ended_at = 1001, end_reason = 'cli_close' WHERE id = 'late'").run()
    p.child.stdin!.end('y\n')
    expect((await p).stdout).toContain('Pruned 1 session(s).')
    expect(db.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['late'])
    db.close()
  }, 120_000)
})
