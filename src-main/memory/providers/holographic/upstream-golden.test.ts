// Fidelity with upstream's holographic plugin, on files upstream's own Python wrote
// (test/fixtures/upstream/holographic, scripts/golden/holographic.py): Caduceus encodes atoms and binds
// byte-equal and bundles within 1e-9 a phase; reading upstream's store it answers probe / related /
// reason / search / list and prefetch as upstream did; replaying upstream's calls it writes the same
// replies, vectors, banks and entities; upstream's answers over Caduceus's file are Caduceus's own.
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config'
import type { ChatMessage } from '../../provider'
import { bind, bytesToPhases, encodeAtom, encodeFact, encodeText, unbind } from './hrr'
import { HolographicProvider } from './provider'

const DIR = resolve(__dirname, '../../../../test/fixtures/upstream/holographic')
type Call = { tool: string; args: Record<string, unknown> }
const fixture = <T>(name: string): T => JSON.parse(readFileSync(join(DIR, name), 'utf8')) as T
const plan = fixture<{
  ops: Call[]
  queries: Call[]
  prefetch: string[]
  setup: { ops: Call[]; messages: ChatMessage[]; queries: Call[] }
}>('ops.json')
const upstream = fixture<{ ops: unknown[]; queries: unknown[]; prefetch: string[] }>('upstream-answers.json')
const TOL = 1e-9

const homes: string[] = []
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true })
})

/** A provider over a copy of `file` (or a fresh store) in a temp home. */
function open(file?: string): { p: HolographicProvider; db: string } {
  const home = mkdtempSync(join(tmpdir(), 'cad-holo-golden-'))
  homes.push(home)
  const db = join(home, 'memory_store.db')
  if (file) copyFileSync(join(DIR, file), db)
  const p = new HolographicProvider({ home })
  p.initialize('golden', { hermesHome: home, platform: 'cli' })
  return { p, db }
}
const replies = (p: HolographicProvider, calls: Call[]) =>
  calls.map((c) => JSON.parse(p.handleToolCall(c.tool, c.args)))

/** Phase distance on the circle (2π − ε and +ε are neighbours). */
const phaseGap = (a: number, b: number) => Math.min(Math.abs(a - b), 2 * Math.PI - Math.abs(a - b))
function maxGap(a: Float64Array, b: Float64Array): number {
  expect(a.length).toBe(b.length)
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, phaseGap(a[i]!, b[i]!))
  return m
}
/** Deep equality with numbers (scores) within TOL. */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number') {
    expect(typeof actual, path).toBe('number')
    expect(Math.abs((actual as number) - expected), path).toBeLessThan(TOL)
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true)
    expect((actual as unknown[]).length, path).toBe(expected.length)
    expected.forEach((e, i) => expectClose((actual as unknown[])[i], e, `${path}[${i}]`))
  } else if (expected && typeof expected === 'object') {
    expect(Object.keys(actual as object).sort(), path).toEqual(Object.keys(expected).sort())
    for (const [k, v] of Object.entries(expected))
      expectClose((actual as Record<string, unknown>)[k], v, `${path}.${k}`)
  } else expect(actual, path).toEqual(expected)
}

describe('HRR encoding', () => {
  it('atoms, binds and unbinds are byte-equal to upstream; texts and facts within 1e-9 a phase', () => {
    const { vectors } = fixture<{ vectors: Array<Record<string, string | number | string[]>> }>('vectors.json')
    expect(vectors.length).toBeGreaterThan(10)
    for (const v of vectors) {
      const dim = v.dim as number
      const want = Buffer.from(v.b64 as string, 'base64')
      if (v.kind === 'atom') expect(Buffer.from(encodeAtom(v.word as string, dim).buffer).equals(want)).toBe(true)
      else if (v.kind === 'bind' || v.kind === 'unbind') {
        const op = v.kind === 'bind' ? bind : unbind
        const got = op(encodeAtom(v.a as string, dim), encodeAtom(v.b as string, dim))
        expect(Buffer.from(got.buffer).equals(want), `${v.kind} ${v.a} ${v.b} ${dim}`).toBe(true)
      } else {
        const got =
          v.kind === 'text'
            ? encodeText(v.text as string, dim)
            : encodeFact(v.text as string, v.entities as string[], dim)
        expect(maxGap(got, bytesToPhases(want)!)).toBeLessThan(TOL)
      }
    }
  })
})

describe("upstream's store read by Caduceus", () => {
  it('probe, related, reason, search, list and prefetch answer as upstream did', () => {
    const { p } = open('upstream.db')
    const got = replies(p, plan.queries)
    plan.queries.forEach((q, i) => expectClose(got[i], upstream.queries[i], `${q.args.action} #${i}`))
    expect(plan.prefetch.map((q) => p.prefetch(q))).toEqual(upstream.prefetch)
    expect(upstream.prefetch[0]).toContain('- [0.6] Ada Lovelace wrote') // upstream's one-decimal trust
    p.shutdown()
  })

  it('facts stored without a vector (an older Caduceus file) get upstream-equal vectors at start-up', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-holo-legacy-'))
    homes.push(home)
    const file = join(home, 'memory_store.db')
    copyFileSync(join(DIR, 'upstream.db'), file)
    const raw = new Database(file)
    raw.exec('UPDATE facts SET hrr_vector = NULL; DELETE FROM memory_banks')
    raw.close()
    const p = new HolographicProvider({ home })
    p.initialize('legacy', { hermesHome: home, platform: 'cli' })
    expectClose(JSON.parse(p.handleToolCall('fact_store', plan.queries[0]!.args)), upstream.queries[0])
    p.shutdown()
    expectSameStore(file, join(DIR, 'upstream.db'))
  })
})

describe('a store Caduceus writes', () => {
  it("replays upstream's calls with upstream's replies, vectors, banks and entities", () => {
    const { p, db } = open()
    expectClose(replies(p, plan.ops), upstream.ops)
    p.shutdown()
    expectSameStore(db, join(DIR, 'upstream.db'))
  })

  it("upstream's answers over Caduceus's file (written by the generator) are Caduceus's own", () => {
    const theirs = fixture<{ queries: unknown[]; prefetch: string[] }>('caduceus-answers.json')
    const { p } = open('caduceus.db')
    const mine = replies(p, plan.queries)
    plan.queries.forEach((q, i) => expectClose(mine[i], theirs.queries[i], `${q.args.action} #${i}`))
    expect(plan.prefetch.map((q) => p.prefetch(q))).toEqual(theirs.prefetch)
    // Upstream's probe over Caduceus's file finds Caduceus's facts about Ada, best first.
    const ada = (theirs.queries[0] as { results: Array<{ content: string }> }).results
    expect(ada[0]!.content).toBe('Charles Babbage designed the Analytical Engine')
    expect(ada.filter((r) => r.content.includes('Ada Lovelace')).length).toBeGreaterThan(4)
    p.shutdown()
  })
})

describe("a profile configured by upstream's `hermes memory setup` (every setting a string)", () => {
  const SETUP = join(DIR, 'setup')
  const setupAnswers = fixture<{ ops: unknown[]; queries: unknown[] }>('setup/upstream-answers.json')

  /** A home holding upstream's setup config.yaml (and optionally a store), read as the host reads it. */
  function setupHome(db?: string): { p: HolographicProvider; home: string; file: string } {
    const home = mkdtempSync(join(tmpdir(), 'cad-holo-setup-'))
    homes.push(home)
    copyFileSync(join(SETUP, 'config.yaml'), join(home, 'config.yaml'))
    const file = join(home, 'memory_store.db')
    if (db) copyFileSync(join(SETUP, db), file)
    return { p: new HolographicProvider({ config: loadConfig(home).raw, home }), home, file }
  }

  it("reads hrr_dim '512', default_trust '0.8', auto_extract 'true'; the tools and session-end extraction write upstream's store", () => {
    expect(readFileSync(join(SETUP, 'config.yaml'), 'utf8')).toContain("hrr_dim: '512'")
    const { p, home, file } = setupHome()
    p.initialize('setup', { hermesHome: home, platform: 'cli' })
    expectClose(replies(p, plan.setup.ops), setupAnswers.ops)
    p.onSessionEnd(plan.setup.messages)
    p.shutdown()
    // Same facts (the whole message, 400 code points at most, upstream's categories), trust 0.8, 512-wide
    // vectors and banks, same entities.
    expectSameStore(file, join(SETUP, 'upstream.db'))
    const widths = new Database(file, { readonly: true })
    expect(widths.prepare('SELECT DISTINCT length(hrr_vector) / 8 AS w FROM facts').all()).toEqual([{ w: 512 }])
    widths.close()
  })

  it("upstream's probe / search / related / list over Caduceus's file (written by the generator) answer as over its own", () => {
    const theirs = fixture<{ queries: unknown[] }>('setup/caduceus-answers.json')
    plan.setup.queries.forEach((q, i) => {
      expect(theirs.queries[i], `${q.args.action} #${i}`).not.toHaveProperty('error')
      expectClose(withoutTimes(theirs.queries[i]), withoutTimes(setupAnswers.queries[i]), `${q.args.action} #${i}`)
    })
    // And Caduceus reads both files as upstream does.
    for (const db of ['upstream.db', 'caduceus.db']) {
      const { p, home } = setupHome(db)
      p.initialize('setup', { hermesHome: home, platform: 'cli' })
      plan.setup.queries.forEach((q, i) =>
        expectClose(withoutTimes(replies(p, [q])[0]), withoutTimes(setupAnswers.queries[i]), `${db} ${q.args.action}`)
      )
      p.shutdown()
    }
  })

  it("a 512-wide store with hrr_dim 1024 (upstream's default) is refused, never re-encoded: no 1024-wide vector or bank", () => {
    // Upstream itself corrupts the file here (mismatch.json: its add fails half-way and probe/search raise).
    const upstreamMismatch = fixture<{ replies: Array<{ error?: string }> }>('setup/mismatch.json')
    expect(upstreamMismatch.replies[1]!.error).toContain('could not be broadcast')
    const home = mkdtempSync(join(tmpdir(), 'cad-holo-width-'))
    homes.push(home)
    const file = join(home, 'memory_store.db')
    copyFileSync(join(SETUP, 'upstream.db'), file)
    // The picker's check, before any turn: it names the width and leaves nothing beside a WAL store (a read-only
    // connection would leave its -wal / -shm).
    const wal = new Database(file)
    wal.pragma('journal_mode = WAL')
    wal.close()
    expect(new HolographicProvider({ config: {}, home }).setupProblem()).toMatch(/holds 512-wide HRR vectors/)
    expect(readdirSync(home)).toEqual(['memory_store.db'])
    for (const hrr_dim of [1024, '1024', undefined]) {
      const p = new HolographicProvider({
        config: { plugins: { 'hermes-memory-store': { auto_extract: true, ...(hrr_dim ? { hrr_dim } : {}) } } },
        home
      })
      expect(() => p.initialize('width', { hermesHome: home, platform: 'cli' })).toThrow(
        /holds 512-wide HRR vectors but plugins\.hermes-memory-store\.hrr_dim is 1024: set hrr_dim to 512/
      )
      expect(() =>
        p.handleToolCall('fact_store', { action: 'add', content: 'Grace Hopper found the first bug' })
      ).toThrow(/512-wide/)
      p.onSessionEnd([{ role: 'user', content: 'I prefer light mode in my terminal.' }])
      expect(p.prefetch('Analytical Engine')).toBe('')
      p.shutdown()
    }
    // Opening the file sets WAL as upstream does; its facts, vectors, banks and entities are untouched.
    expectSameStore(file, join(SETUP, 'upstream.db'))
  })

  it("a store another program widened behind Caduceus's back stops the write before anything lands", () => {
    const { p, home, file } = setupHome('upstream.db')
    p.initialize('setup', { hermesHome: home, platform: 'cli' })
    const raw = new Database(file)
    raw.prepare('UPDATE facts SET hrr_vector = ? WHERE fact_id = 1').run(Buffer.alloc(1024 * 8))
    raw.close()
    expect(
      JSON.parse(p.handleToolCall('fact_store', { action: 'add', content: 'Grace Hopper found the first bug' }))
    ).toEqual({ error: expect.stringMatching(/several widths \(512, 1024\)/) })
    p.shutdown()
    const check = new Database(file, { readonly: true })
    expect(check.prepare("SELECT COUNT(*) AS n FROM facts WHERE content LIKE 'Grace%'").get()).toEqual({ n: 0 })
    expect(check.prepare('SELECT DISTINCT dim FROM memory_banks').all()).toEqual([{ dim: 512 }])
    check.close()
  })
})

describe('unusual arguments (args.json, scripts/golden/holographic_args.py), in order on one copy of upstream.db', () => {
  const args = fixture<{ calls: Call[]; replies: unknown[]; divergent: Call[] }>('args.json')
  /** An error reply as behaviour: that it is an error, not its prose (upstream's quotes a KeyError). */
  const shape = (r: unknown) => (r && typeof r === 'object' && 'error' in r ? { error: '<prose>' } : withoutTimes(r))

  it("FTS5 syntax, strings for numbers, categories outside the schema's four, missing ids: upstream's answers", () => {
    const { p } = open('upstream.db')
    args.calls.forEach((c, i) =>
      expectClose(shape(replies(p, [c])[0]), shape(args.replies[i]), `${JSON.stringify(c.args)} #${i}`)
    )
    // where Caduceus answers otherwise on purpose: an empty query or entity is a missing argument, a limit is 1..100
    const [emptyQuery, emptyEntity, zero, negative] = replies(p, args.divergent)
    expect([emptyQuery, emptyEntity]).toEqual([
      { error: 'Missing required argument: query' },
      { error: 'Missing required argument: entity' }
    ])
    expect([zero.count, negative.count]).toEqual([1, 1])
    p.shutdown()
  })
})

describe('a store from before upstream kept vectors (facts without hrr_vector, no memory_banks: legacy/)', () => {
  const LEGACY = join(DIR, 'legacy')
  const legacy = fixture<{
    queries: Call[]
    ops: Call[]
    old_layout: { facts_columns: string[]; tables: string[] }
    migrated_layout: { facts_columns: string[]; tables: string[] }
    query_replies: unknown[]
    op_replies: unknown[]
  }>('legacy/upstream.json')
  const layout = (file: string) => {
    const db = new Database(file, { readonly: true })
    const out = {
      facts_columns: db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('facts') as string[],
      tables: db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'facts_fts_%' AND name != 'sqlite_sequence' ORDER BY name"
        )
        .pluck()
        .all() as string[]
    }
    db.close()
    return out
  }

  it("is migrated as upstream's plugin migrates it; recall and writes answer as upstream's after its rebuild", () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-holo-old-'))
    homes.push(home)
    const file = join(home, 'memory_store.db')
    copyFileSync(join(LEGACY, 'old.db'), file)
    expect(layout(file)).toEqual(legacy.old_layout)
    const p = new HolographicProvider({ home })
    p.initialize('legacy', { hermesHome: home, platform: 'cli' })
    expect(layout(file)).toEqual(legacy.migrated_layout)
    legacy.queries.forEach((q, i) =>
      expectClose(withoutTimes(replies(p, [q])[0]), withoutTimes(legacy.query_replies[i]), `${q.args.action} #${i}`)
    )
    legacy.ops.forEach((q, i) =>
      expectClose(
        withoutTimes(replies(p, [q])[0]),
        withoutTimes(legacy.op_replies[i]),
        `${String(q.args.action)} #${i}`
      )
    )
    p.shutdown()
    // Upstream opening the file Caduceus left finds the same facts, trust, vectors, banks and entities.
    expectSameStore(file, join(LEGACY, 'upstream.db'))
  })
})

/** A reply without created_at / updated_at (each run of the generator stamps its own time). */
function withoutTimes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutTimes)
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== 'created_at' && k !== 'updated_at')
        .map(([k, x]) => [k, withoutTimes(x)])
    )
  return v
}

/** Same facts (by content) with vectors within TOL, same banks and entity names. */
function expectSameStore(mine: string, theirs: string): void {
  const a = new Database(mine, { readonly: true })
  const b = new Database(theirs, { readonly: true })
  const facts = (db: Database.Database) =>
    new Map(
      (
        db.prepare('SELECT content, category, tags, trust_score, hrr_vector FROM facts').all() as Array<{
          content: string
          category: string
          tags: string
          trust_score: number
          hrr_vector: Buffer
        }>
      ).map((r) => [r.content, r])
    )
  const fa = facts(a)
  const fb = facts(b)
  expect([...fa.keys()].sort()).toEqual([...fb.keys()].sort())
  for (const [content, r] of fb) {
    const m = fa.get(content)!
    expect([m.category, m.tags, m.trust_score]).toEqual([r.category, r.tags, r.trust_score])
    expect(maxGap(bytesToPhases(m.hrr_vector)!, bytesToPhases(r.hrr_vector)!), content).toBeLessThan(TOL)
  }
  const banks = (db: Database.Database) =>
    db.prepare('SELECT bank_name, vector, dim, fact_count FROM memory_banks ORDER BY bank_name').all() as Array<{
      bank_name: string
      vector: Buffer
      dim: number
      fact_count: number
    }>
  const ba = banks(a)
  const bb = banks(b)
  expect(ba.map((r) => [r.bank_name, r.dim, r.fact_count])).toEqual(bb.map((r) => [r.bank_name, r.dim, r.fact_count]))
  ba.forEach((r, i) => expect(maxGap(bytesToPhases(r.vector)!, bytesToPhases(bb[i]!.vector)!)).toBeLessThan(TOL))
  const names = (db: Database.Database) =>
    db
      .prepare('SELECT name FROM entities ORDER BY entity_id')
      .all()
      .map((r) => (r as { name: string }).name)
  expect(names(a)).toEqual(names(b))
  a.close()
  b.close()
}
