// Children of upstream's synchronous delegate tool (a delegate child session: parent link and `_delegate_from`, no
// `async_delegations` row) are listed on the Subagents page through the host, read-only: goal, model, state from
// the session (open and recently active, or how it ended), transcript size and cost.
import { cpSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { Subagent } from '@shared/contract'
import { createHost } from './create-host'
import { createLogger } from '../log/log'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'

const FIDELITY = resolve(import.meta.dirname, '../../../test/fixtures/upstream/fidelity/home')

afterAll(cleanupTempDirs)

describe("upstream's synchronous delegate children on the Subagents page", () => {
  it('lists each child session as a read-only entry, filtered by parent', async () => {
    const home = tempDir()
    cpSync(FIDELITY, home, { recursive: true })
    // a child upstream is running right now: open, with a message a moment ago
    const now = Date.now() / 1000
    const db = new Database(join(home, 'state.db'))
    db.prepare(
      `INSERT INTO sessions (id, source, model, model_config, parent_session_id, started_at, estimated_cost_usd)
       VALUES ('dg-now', 'cli', 'gpt-4o-mini', '{"_delegate_from": "old-parent"}', 'old-parent', ?, 0.25)`
    ).run(now - 30)
    db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('dg-now', 'user', ?, ?)`).run(
      'check the heater stock',
      now - 5
    )
    // a child whose goal came with an image: upstream stores list content as "\0json:" + json.dumps(parts)
    db.prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('img-parent', 'cli', ?)`).run(now - 90)
    db.prepare(
      `INSERT INTO sessions (id, source, model, model_config, parent_session_id, started_at)
       VALUES ('dg-img', 'cli', 'gpt-4o-mini', '{"_delegate_from": "img-parent"}', 'img-parent', ?)`
    ).run(now - 60)
    db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('dg-img', 'user', ?, ?)`).run(
      '\0json:[{"type": "text", "text": "read this label"}, ' +
        '{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]',
      now - 50
    )
    db.close()
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    try {
      const list = async (input: Record<string, unknown>) => {
        const r = (await host.dispatcher.invoke(
          'subagents.list' as never,
          { profile: 'default', ...input } as never
        )) as {
          ok: boolean
          output?: { items: Subagent[] }
        }
        expect(r.ok, JSON.stringify(r)).toBe(true)
        return r.output!.items
      }
      const items = await list({ parentSessionId: 'old-parent' })
      const by = (id: string) => items.find((s) => s.childSessionId === id)
      // children only: the branch of the same parent is no subagent
      expect(items.map((s) => s.childSessionId).sort()).toEqual(['dg-live', 'dg-now', 'dg-old', 'dg-recent'])
      for (const s of items)
        expect(s).toMatchObject({
          profile: 'default',
          parentSessionId: 'old-parent',
          foreign: true,
          childId: s.childSessionId
        })
      expect(by('dg-now')).toMatchObject({ state: 'running', goal: 'check the heater stock', model: 'gpt-4o-mini' })
      expect(by('dg-now')!.cost.usd).toBeCloseTo(0.25)
      expect(by('dg-recent')).toMatchObject({
        state: 'completed',
        rawState: 'completed',
        goal: 'delegate task dg-recent'
      })
      expect(by('dg-old')).toMatchObject({ state: 'completed', transcriptMessages: 1 })
      expect(by('dg-old')!.transcriptChars).toBe('delegate task dg-old'.length)
      // never ended and silent for years: not claimed as running
      expect(by('dg-live')!.state).toBe('unknown')

      // the grandchild is listed under its own parent, and nobody else's children leak into a parent's list
      expect((await list({ parentSessionId: 'dg-live' })).map((s) => s.childSessionId)).toEqual(['dg-grand'])
      expect(await list({ parentSessionId: 'someone-else' })).toEqual([])
      expect((await list({})).length).toBe(6)
      // the goal as people read it: its text and a placeholder for the image, never the stored marker and JSON
      const [img] = await list({ parentSessionId: 'img-parent' })
      expect(img!.goal).toMatch(/^read this label/)
      expect(img!.goal).toContain('[image')
      expect(img!.goal).not.toContain('json:')

      // read-only: the host refuses a follow-up to it
      const fu = (await host.dispatcher.invoke(
        'subagents.followUp' as never,
        { profile: 'default', childId: 'dg-now', text: 'more' } as never
      )) as { ok: boolean }
      expect(fu.ok).toBe(false)
    } finally {
      await host.close()
    }
  })
})
