// The Sessions list in each order a user sorts it by (last activity, start, messages, tokens, cost, title): the host
// sorts, so paging through with any page size gives the one order, in one profile and merged across profiles.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionPage } from '@shared/contract'
import { StoreRegistry, type SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import type { ListOptions } from './read-list'

let reg: StoreRegistry
const at = (n: number) => 1_700_000_000 + n * 1000

interface Seed {
  id: string
  started: number
  messages: number
  tokens: [number, number, number, number, number]
  est: number | null
  routes?: number
  title: string | null
  opening: string
}

// Orders chosen so no two sorts agree: start is not activity (each session's last message is at `activityAt`).
const WORK: Seed[] = [
  { id: 'w-a', started: 1, messages: 5, tokens: [100, 50, 0, 0, 0], est: 0.5, title: 'beta plan', opening: 'q' },
  { id: 'w-b', started: 2, messages: 1, tokens: [9000, 10, 0, 0, 0], est: null, title: null, opening: 'Zebra facts' },
  {
    id: 'w-c',
    started: 3,
    messages: 9,
    tokens: [10, 10, 500, 0, 5],
    est: 0.02,
    routes: 2.5,
    title: 'Alpha',
    opening: 'x'
  },
  { id: 'w-d', started: 4, messages: 3, tokens: [0, 0, 0, 0, 0], est: 1.25, title: null, opening: 'apple pie' }
]
const DEF: Seed[] = [
  { id: 'd-a', started: 5, messages: 7, tokens: [400, 400, 0, 0, 0], est: 0.75, title: 'Gamma', opening: 'q' },
  { id: 'd-b', started: 6, messages: 2, tokens: [1, 1, 0, 0, 0], est: 0.01, title: 'delta', opening: 'q' }
]
/** Each session's last message, well after every start, in an order of its own (not the starts'). */
const LAST = { 'w-a': 6, 'w-b': 2, 'w-c': 5, 'w-d': 1, 'd-a': 3, 'd-b': 4 } as Record<string, number>
const activityAt = (s: Seed) => at(20) + LAST[s.id]! * 10

async function seed(store: SessionStore, rows: Seed[]): Promise<void> {
  for (const s of rows) {
    await store.createSession(s.id, 'cli', { startedAt: at(s.started) })
    for (let i = 0; i < s.messages; i++)
      await store.appendMessage(s.id, {
        role: i % 2 ? 'assistant' : 'user',
        content: i === 0 ? s.opening : `m${i}`,
        timestamp: i === s.messages - 1 ? activityAt(s) : at(s.started) + i
      })
    if (s.title) await store.setTitle(s.id, s.title)
    const [input, output, cacheRead, cacheWrite, reasoning] = s.tokens
    rawDb(store)
      .prepare(
        `UPDATE sessions SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?,
          reasoning_tokens = ?, estimated_cost_usd = ?, cost_status = ?, api_call_count = 1 WHERE id = ?`
      )
      .run(input, output, cacheRead, cacheWrite, reasoning, s.est, s.est === null ? 'unknown' : 'estimated', s.id)
    if (s.routes)
      rawDb(store)
        .prepare(
          `INSERT INTO session_model_usage (session_id, model, input_tokens, output_tokens, estimated_cost_usd,
            api_call_count) VALUES (?, 'aux', 1, 1, ?, 1)`
        )
        .run(s.id, s.routes)
  }
}

beforeAll(async () => {
  const root = tempDir()
  mkdirSync(join(root, 'profiles', 'work'), { recursive: true })
  reg = new StoreRegistry(root)
  await seed(reg.get('work'), WORK)
  await seed(reg.get('default'), DEF)
})
afterAll(() => {
  reg.closeAll()
  cleanupTempDirs()
})

/** Every id, paging `limit` at a time (one profile, or merged). */
function ids(q: ListOptions, limit: number, profile?: 'work'): string[] {
  const out: string[] = []
  let cursor: string | null = null
  do {
    const page: SessionPage = profile
      ? reg.get(profile).listSessions({ ...q, limit, cursor })
      : reg.listAll({ ...q, limit, cursor })
    SessionPage.parse(page)
    out.push(...page.items.map((s) => s.id))
    cursor = page.nextCursor
  } while (cursor && out.length < 50)
  return out
}

const sum = (t: number[]) => t.reduce((a, b) => a + b, 0)
const expected: Record<string, (s: Seed) => number | string> = {
  started: (s) => s.started,
  messages: (s) => s.messages,
  tokens: (s) => sum(s.tokens),
  // the row's or its routes' (an auxiliary call), whichever is more; unpriced as 0
  cost: (s) => Math.max(s.est ?? 0, s.routes ?? 0),
  // its own title, else its first user message, case-folded
  title: (s) => (s.title ?? s.opening).toLowerCase()
}
const order = (rows: Seed[], key: (s: Seed) => number | string, dir: 'asc' | 'desc') =>
  [...rows]
    .sort((a, b) => {
      const x = key(a)
      const y = key(b)
      const c = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : 1
      return dir === 'asc' ? c : -c
    })
    .map((s) => s.id)

describe('sorted session lists', () => {
  for (const [sort, key] of Object.entries(expected))
    for (const dir of ['asc', 'desc'] as const)
      it(`${sort} ${dir}: one profile and merged, whatever the page size`, () => {
        const q = { sort: sort as ListOptions['sort'], dir }
        for (const limit of [1, 2, 100]) {
          expect(ids(q, limit, 'work'), `work, pages of ${limit}`).toEqual(order(WORK, key, dir))
          expect(ids(q, limit), `all, pages of ${limit}`).toEqual(order([...WORK, ...DEF], key, dir))
        }
      })

  it('defaults: last activity newest first (the unchanged first page), title A → Z, others largest first', () => {
    const byActivity = order([...WORK, ...DEF], activityAt, 'desc')
    expect(ids({}, 100)).toEqual(byActivity)
    expect(ids({ sort: 'active' }, 2)).toEqual(byActivity)
    expect(ids({ sort: 'active', dir: 'asc' }, 2)).toEqual([...byActivity].reverse())
    expect(ids({ sort: 'title' }, 100)).toEqual(order([...WORK, ...DEF], expected.title!, 'asc'))
    expect(ids({ sort: 'messages' }, 100)).toEqual(order([...WORK, ...DEF], expected.messages!, 'desc'))
  })

  it('a cursor is only good for its own order', () => {
    const first = reg.get('work').listSessions({ sort: 'messages', limit: 1 })
    expect(() => reg.get('work').listSessions({ sort: 'tokens', limit: 1, cursor: first.nextCursor })).toThrow(
      /invalid cursor/
    )
    expect(() => reg.get('work').listSessions({ limit: 1, cursor: first.nextCursor })).toThrow(/invalid cursor/)
  })
})
