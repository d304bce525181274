import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { SessionDetail, SessionPage } from '@shared/contract'
import { SessionStore, StoreRegistry, writeDemoHome } from './index'
import { generateBulk } from './demo'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'

afterAll(cleanupTempDirs)

const small = { default: 40, work: 20, research: 15 }

function fingerprint(root: string) {
  const reg = new StoreRegistry(root)
  try {
    return reg.list().map((p) => {
      const db = rawDb(reg.get(p.name))
      return [
        db.prepare('SELECT id, title, message_count, estimated_cost_usd, end_reason FROM sessions ORDER BY id').all(),
        db.prepare('SELECT count(*) AS n FROM messages').get()
      ]
    })
  } finally {
    reg.closeAll()
  }
}

describe('writeDemoHome', () => {
  it('is deterministic for a seed', async () => {
    const a = tempDir(),
      b = tempDir()
    await writeDemoHome(a, { seed: 5, sessions: small })
    await writeDemoHome(b, { seed: 5, sessions: small })
    expect(fingerprint(a)).toEqual(fingerprint(b))
  })

  it('writes three profiles with configs, memories, lineage, costs and delegations', async () => {
    const root = tempDir()
    const home = await writeDemoHome(root, { seed: 2 })
    expect(home.profiles.map((p) => p.name)).toEqual(['default', 'work', 'research'])
    expect(home.profiles.reduce((n, p) => n + p.sessions, 0)).toBeGreaterThanOrEqual(200)
    const cfg = parse(readFileSync(join(root, 'profiles', 'work', 'config.yaml'), 'utf8'))
    expect(cfg.model).toEqual({ default: 'demo-model', provider: 'demo', base_url: 'http://127.0.0.1:0/v1' })
    expect(readFileSync(join(root, 'memories', 'MEMORY.md'), 'utf8').split('\n§\n').length).toBeGreaterThan(1)

    const store = new SessionStore(join(root, 'state.db'), { profile: 'default' })
    try {
      const q = (sql: string) => (rawDb(store).prepare(sql).get() as { n: number }).n
      expect(q("SELECT count(*) AS n FROM sessions WHERE end_reason = 'compression'")).toBeGreaterThan(0)
      expect(
        q("SELECT count(*) AS n FROM sessions WHERE json_extract(model_config, '$._branched_from') IS NOT NULL")
      ).toBeGreaterThan(0)
      expect(q("SELECT count(*) AS n FROM sessions WHERE source = 'subagent'")).toBeGreaterThan(0)
      expect(q("SELECT count(*) AS n FROM messages WHERE role = 'tool'")).toBeGreaterThan(0)
      expect(q('SELECT count(*) AS n FROM messages WHERE reasoning IS NOT NULL')).toBeGreaterThan(0)
      expect(q("SELECT count(*) AS n FROM sessions WHERE cost_status = 'unknown'")).toBeGreaterThan(0)
      expect(q("SELECT count(*) AS n FROM sessions WHERE cost_status = 'estimated'")).toBeGreaterThan(0)
      expect(q('SELECT count(*) AS n FROM session_model_usage')).toBeGreaterThan(0)
      expect(
        q(
          'SELECT count(*) AS n FROM sessions WHERE message_count <> (SELECT count(*) FROM messages m WHERE m.session_id = sessions.id)'
        )
      ).toBe(0)
      const dl = rawDb(store).prepare('SELECT * FROM async_delegations').all() as Array<Record<string, unknown>>
      expect(
        dl.some(
          (d) =>
            d.retained === 1 &&
            d.tombstoned_at === null &&
            d.child_session_id &&
            d.owner_profile === 'default' &&
            d.usage_json
        )
      ).toBe(true)
      expect(dl.some((d) => d.tombstoned_at !== null)).toBe(true)
      // nothing left running: its owner is never alive, and the host would turn it into a failure notice
      expect(dl.filter((d) => d.state === 'running' || d.state === 'pending')).toEqual([])
      for (const d of dl)
        for (const c of JSON.parse(String(d.children_json)))
          expect(store.getSession(c.session_id)?.source).toBe('subagent')
      expect(q('SELECT count(*) AS n FROM delegation_child_usage')).toBeGreaterThan(0)
      const page = SessionPage.parse(store.listSessions({ limit: 50 }))
      expect(page.items.length).toBe(50)
      expect(page.items.some((s) => s.kind === 'continuation')).toBe(true)
      // a chain reads as one conversation: each continuation asks what its root asked, never a new topic
      const asks = (id: string) =>
        (
          rawDb(store).prepare("SELECT content FROM messages WHERE session_id = ? AND role = 'user'").all(id) as Array<{
            content: string
          }>
        ).map((m) => m.content)
      const conts = rawDb(store)
        .prepare(
          `SELECT c.id, c.parent_session_id AS parent FROM sessions c JOIN sessions p ON p.id = c.parent_session_id WHERE p.end_reason = 'compression'
          AND NOT (json_valid(c.model_config) AND (json_extract(c.model_config, '$._branched_from') IS NOT NULL
            OR json_extract(c.model_config, '$._delegate_from') IS NOT NULL))`
        )
        .all() as Array<{ id: string; parent: string }>
      expect(conts.length).toBeGreaterThan(0)
      for (const c of conts) expect(asks(c.id)).toContain(asks(c.parent).find((a) => !a.startsWith('[CONTEXT')))
      for (const s of page.items.slice(0, 10)) SessionDetail.parse(store.getSessionDetail(s.id))
    } finally {
      store.close()
    }
  })
})

describe('demo home search index (issue 21)', () => {
  it('both FTS indexes hold every row of their source (trigram: what upstream indexes, no tool/delegate rows)', async () => {
    const root = tempDir()
    await writeDemoHome(root, { seed: 3, sessions: small })
    const reg = new StoreRegistry(root)
    try {
      for (const p of reg.list()) {
        const db = rawDb(reg.get(p.name))
        const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n
        // docsize has one row per indexed document (count(*) on an external-content table reads the view instead)
        expect(n('SELECT count(*) AS n FROM messages_fts_docsize')).toBe(n('SELECT count(*) AS n FROM messages'))
        expect(n('SELECT count(*) AS n FROM messages_fts_trigram_docsize')).toBe(
          n('SELECT count(*) AS n FROM messages_fts_trigram_src')
        )
        for (const t of ['messages_fts', 'messages_fts_trigram'])
          // throws on an index that disagrees with its source
          db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES('integrity-check', 1)`).run()
      }
    } finally {
      reg.closeAll()
    }
  })
})

describe('generateBulk', () => {
  it('writes consistent sessions and messages', () => {
    const store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    expect(generateBulk(store, { sessions: 300, messagesPerSession: 8 })).toEqual({ sessions: 300, messages: 2400 })
    expect(rawDb(store).prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 2400 })
    expect(store.listSessions({ limit: 10 }).items).toHaveLength(10)
    expect(store.search({ query: 'deploy' }).length).toBeGreaterThan(0)
    store.close()
  })
})

describe('demo home content for newcomers (issue 14)', () => {
  it('most transcripts, the top-cost ones included, carry a code block, a table and a task list; few rows are partial', async () => {
    const root = tempDir()
    await writeDemoHome(root, { seed: 1, sessions: small })
    const reg = new StoreRegistry(root)
    try {
      const db = rawDb(reg.get('default'))
      const fence = '%\n' + '`'.repeat(3) + '%'
      const rich = (id: string) =>
        !!db
          .prepare(
            `SELECT 1 FROM messages WHERE session_id = ? AND role = 'assistant'
        AND content LIKE ? AND content LIKE '%|---|%' AND content LIKE '%- [ ] %'`
          )
          .get(id, fence)
      const all = db.prepare('SELECT id, cost_status FROM sessions ORDER BY estimated_cost_usd DESC').all() as Array<{
        id: string
        cost_status: string | null
      }>
      expect(all.slice(0, 5).every((r) => rich(r.id))).toBe(true)
      expect(all.filter((r) => rich(r.id)).length / all.length).toBeGreaterThan(0.8)
      expect(all.filter((r) => r.cost_status === 'partial').length / all.length).toBeLessThan(0.25)
      // the delegation event names its own delegation, not a placeholder
      const events = db
        .prepare('SELECT delegation_id, event_json FROM async_delegations WHERE event_json IS NOT NULL')
        .all() as Array<{ delegation_id: string; event_json: string }>
      expect(events.length).toBeGreaterThan(0)
      for (const e of events) expect(JSON.parse(e.event_json).delegation_id).toBe(e.delegation_id)
    } finally {
      reg.closeAll()
    }
  })
})
