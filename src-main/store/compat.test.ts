/**
 * Homes written by an older (v21) and the current (v30) upstream: a Caduceus turn records usage in the home's
 * own shapes, and afterwards the upstream's own SQL still upserts usage, appends, deletes and passes the FTS
 * integrity check. Opening alone changes nothing.
 */
import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { Agent } from '../agent/agent'
import { startScriptedProvider } from '../agent/scripted'
import { ToolRegistry } from '../agent/tools/registry'
import { makeHome, upstream, type HomeVersion } from './test-fixtures/homes'
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
