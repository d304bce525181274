/**
 * Homes written by an older (v21) and the current (v30) upstream: a Caduceus turn records usage in the home's
 * own shapes, and afterwards the upstream's own SQL still upserts usage, appends, deletes and passes the FTS
 * integrity check. Opening alone changes nothing. A chat UI's task request folded into its conversation keeps its
 * spend and money kind there, in the home's route shape.
 */
import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { Agent } from '../agent/agent'
import { startScriptedProvider } from '../agent/scripted'
import { ToolRegistry } from '../agent/tools/registry'
import { makeHome, upstream, type HomeVersion } from './test-fixtures/homes'
import { rawDb } from './test-fixtures/raw-db'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { usageReport } from './test-fixtures/usage'

afterAll(cleanupTempDirs)

const sqlOf = (db: Database.Database) =>
  db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all()

describe.each([21, 30] as HomeVersion[])('a v%s home', (version) => {
  it('a Caduceus turn records usage in the home shape; upstream SQL keeps working afterwards', async () => {
    const path = makeHome(tempDir(), version)
    const raw = new Database(path)
    const up = upstream(raw, version)
    up.createSession('U1')
    up.append('U1', 'user', 'the heater is broken')
    up.usage('U1', 'up-model', 10)
    const before = sqlOf(raw)
    const header = readFileSync(path).subarray(18, 20) // file format bytes: 1,1 = rollback journal, 2,2 = WAL

    const store = new SessionStore(path)
    // opening and reading change nothing
    expect(store.listSessions().items.map((s) => s.id)).toEqual(['U1'])
    expect(store.search({ query: 'heater' }).map((h) => h.sessionId)).toEqual(['U1'])
    expect(readFileSync(path).subarray(18, 20)).toEqual(header)
    expect(sqlOf(raw)).toEqual(before)

    const server = await startScriptedProvider({
      script: [{ text: 'Fixed it.', usage: { prompt_tokens: 120, completion_tokens: 30 } } as never]
    })
    try {
      const agent = new Agent({
        profile: 'default',
        sessionId: 'C1',
        store,
        tools: new ToolRegistry(),
        maxIterations: 4,
        systemPrompt: 'You are Caduceus.',
        runtime: {
          model: 'test-model',
          provider: 'custom',
          baseUrl: server.baseUrl,
          apiKey: 'sk-test-abcdef123456',
          apiMode: 'chat_completions',
          maxRetries: 0
        },
        gatewaySessionKey: 'agent:main:desk:C1'
      })
      const r = await agent.runTurn('please fix the heater')
      expect(r.status).toBe('completed')
      await agent.close?.()
    } finally {
      await server.close()
    }
    const row = raw
      .prepare('SELECT message_count, input_tokens, output_tokens, api_call_count FROM sessions WHERE id = ?')
      .get('C1') as Record<string, number>
    expect(row.message_count).toBe(2)
    expect(row.input_tokens).toBeGreaterThan(0)
    expect(row.api_call_count).toBe(1)
    const usage = raw
      .prepare('SELECT model, input_tokens, api_call_count FROM session_model_usage WHERE session_id = ?')
      .all('C1')
    expect(usage).toEqual([{ model: 'test-model', input_tokens: row.input_tokens, api_call_count: 1 }])
    const daily = raw.prepare('SELECT input_tokens FROM session_daily_usage WHERE session_id = ?').all('C1')
    expect(daily).toEqual([{ input_tokens: row.input_tokens }])
    if (version === 21) {
      // nothing upstream owns was created or reshaped: same usage/FTS objects, no state_meta, no system_prompts
      const after = new Map(sqlOf(raw).map((o: any) => [o.name, o.sql]))
      for (const o of before as Array<{ name: string; sql: string }>) {
        if (o.name === 'sessions' || o.name === 'messages') continue // nullable columns may be added
        expect(after.get(o.name)).toBe(o.sql)
      }
      for (const name of ['state_meta', 'system_prompts', 'messages_fts_src', 'messages_fts_trigram_src'])
        expect(after.has(name)).toBe(false)
      expect(
        [...after.keys()].filter(
          (n) => !before.some((b: any) => b.name === n) && !n.startsWith('cad_') && !/delegation/.test(n)
        )
      ).toEqual([])
      expect(raw.prepare('SELECT system_prompt IS NOT NULL AS p FROM sessions WHERE id = ?').get('C1')).toEqual({
        p: 1
      })
    } else {
      expect(raw.prepare('SELECT system_prompt_hash IS NOT NULL AS p FROM sessions WHERE id = ?').get('C1')).toEqual({
        p: 1
      })
    }

    // upstream writes after Caduceus: usage upsert (twice, hits the conflict path), append, delete, integrity
    up.usage('C1', 'up-model', 5)
    up.usage('C1', 'up-model', 5)
    up.usage('U1', 'up-model', 5)
    up.append('C1', 'user', 'more words from upstream')
    expect(store.search({ query: 'upstream' }).map((h) => h.sessionId)).toEqual(['C1'])
    up.deleteSession('U1')
    up.integrityCheck()
    expect(store.search({ query: 'heater' }).map((h) => h.sessionId)).toEqual(['C1'])
    // Caduceus again after upstream
    await store.recordUsage(
      'C1',
      usageReport(null, {
        model: 'test-model',
        provider: undefined,
        baseUrl: undefined,
        inputTokens: 1,
        outputTokens: 1
      })
    )
    expect(
      raw
        .prepare(
          "SELECT SUM(api_call_count) AS n FROM session_model_usage WHERE session_id = 'C1' AND model = 'test-model'"
        )
        .get()
    ).toEqual({ n: 2 })
    up.integrityCheck()
    store.close()
    raw.close()
  })
})

// A chat UI's background task folded into its conversation (`foldTaskSession`) or kept hidden (`hideSession`): on a
// v21 home the route key has no `task` and `hidden` comes with Caduceus's first write.
describe.each([21, 30] as HomeVersion[])("a chat UI's task request on a v%s home", (version) => {
  it("a task's usage moves onto its conversation as its route; the task's session goes", async () => {
    const store = new SessionStore(makeHome(tempDir(), version))
    await store.createSession('conv', 'api_server')
    await store.appendMessage('conv', { role: 'user', content: 'plan a trip' })
    await store.recordUsage('conv', usageReport(0.01))
    await store.createSession('task', 'tool')
    await store.appendMessage('task', { role: 'user', content: '### Task:\nGenerate a title' })
    await store.recordUsage('task', usageReport(0.002, { model: 'small', inputTokens: 50, outputTokens: 5 }))
    await store.recordUsage('task', usageReport(null, { model: 'small', inputTokens: 7, outputTokens: 1 }))
    await store.recordUsage('task', usageReport(0.003, { model: 'big', costStatus: 'billed' }))

    expect(await store.foldTaskSession('task', 'conv', 'title_generation')).toBe(true)
    expect(store.getSession('task')).toBeNull()
    const db = rawDb(store)
    expect(db.prepare("SELECT count(*) AS n FROM messages WHERE session_id = 'task'").get()).toEqual({ n: 0 })
    const conv = store.getSession('conv')!
    expect(conv).toMatchObject({ apiCallCount: 4, inputTokens: 257, outputTokens: 46, costStatus: 'partial' })
    expect(conv.estimatedCostUsd).toBeCloseTo(0.012)
    expect(conv.actualCostUsd).toBeCloseTo(0.003)
    const task = version === 21 ? "'' AS task" : 'task'
    const routes = db
      .prepare(
        `SELECT model, ${task}, api_call_count AS calls, estimated_cost_usd AS est, actual_cost_usd AS act, cost_status AS status
         FROM session_model_usage WHERE session_id = 'conv' ORDER BY model`
      )
      .all()
    const named = version === 21 ? '' : 'title_generation'
    // a provider-reported cost is upstream's cost_status 'actual' (usage_pricing.py CostStatus)
    expect(routes).toEqual([
      { model: 'big', task: named, calls: 1, est: 0, act: 0.003, status: 'actual' },
      { model: 'gpt-x', task: '', calls: 1, est: 0.01, act: 0, status: 'estimated' },
      { model: 'small', task: named, calls: 2, est: 0.002, act: 0, status: 'partial' }
    ])
    // nothing to fold from a session that is gone, nor into one
    expect(await store.foldTaskSession('task', 'conv', 'title_generation')).toBe(false)
    await store.createSession('task2', 'tool')
    expect(await store.foldTaskSession('task2', 'gone', 'title_generation')).toBe(false)
    expect(store.getSession('task2')).not.toBeNull()
    store.close()
  })

  it('a task quoting no conversation is kept hidden: in no list, its spend in the costs', async () => {
    const store = new SessionStore(makeHome(tempDir(), version))
    await store.createSession('conv', 'api_server')
    await store.createSession('task', 'tool')
    await store.recordUsage('task', usageReport(0.002))
    expect(await store.hideSession('task')).toBe(true)
    expect(await store.hideSession('task')).toBe(false)
    expect(store.listSessions().items.map((s) => s.id)).toEqual(['conv'])
    expect(store.listSessions({ sources: ['tool'] }).items).toEqual([])
    expect(rawDb(store).prepare("SELECT source, hidden FROM sessions WHERE id = 'task'").get()).toEqual({
      source: 'tool',
      hidden: 1
    })
    store.close()
  })
})
