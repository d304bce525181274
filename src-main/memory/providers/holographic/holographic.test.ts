// The holographic provider on a real memory_store.db in a temp home: every fact_store action, trust
// feedback, entities and aliases, prefetch block, auto_extract, the on_memory_write mirror, and an
// upstream-shaped write (plain INSERT) found by search.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { holographicConfig } from './config'
import { HolographicProvider } from './provider'

let home: string
let p: HolographicProvider
const call = (args: Record<string, unknown>, tool = 'fact_store') => JSON.parse(p.handleToolCall(tool, args))

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cad-holo-'))
  p = new HolographicProvider({ config: { plugins: { 'hermes-memory-store': { auto_extract: true } } }, home })
  p.initialize('s1', { hermesHome: home, platform: 'cli' })
})
afterEach(() => {
  p.shutdown()
  rmSync(home, { recursive: true, force: true })
})

describe('fact_store', () => {
  it('add, search (OR-joined tokens, trust-weighted), update, remove, list; errors name the missing argument', () => {
    expect(call({ action: 'add', content: 'Grace Hopper wrote the first compiler', category: 'project' })).toEqual({
      fact_id: 1,
      status: 'added'
    })
    // A duplicate keeps its row and id; upstream replies "added" either way.
    expect(call({ action: 'add', content: 'Grace Hopper wrote the first compiler' })).toEqual({
      fact_id: 1,
      status: 'added'
    })
    call({ action: 'add', content: 'The build uses esbuild for bundling', tags: 'build,tooling' })
    const found = call({ action: 'search', query: 'who wrote the compiler?' })
    expect(found.count).toBe(1)
    expect(found.results[0]).toMatchObject({
      fact_id: 1,
      content: 'Grace Hopper wrote the first compiler',
      category: 'project',
      trust_score: 0.5
    })
    expect(found.results[0].score).toBeGreaterThan(0)
    expect(call({ action: 'update', fact_id: 2, trust_delta: -0.4 })).toEqual({ updated: true })
    expect(call({ action: 'search', query: 'esbuild bundling' }).count).toBe(0) // below min_trust 0.3
    expect(call({ action: 'search', query: 'esbuild bundling', min_trust: 0 }).count).toBe(1)
    expect(call({ action: 'list' }).count).toBe(2) // list's min_trust defaults to 0, as upstream's
    expect(call({ action: 'list', min_trust: 0.3 }).count).toBe(1)
    expect(call({ action: 'remove', fact_id: 2 })).toEqual({ removed: true })
    expect(call({ action: 'remove', fact_id: 2 })).toEqual({ removed: false })
    expect(call({ action: 'add' })).toEqual({ error: 'Missing required argument: content' })
    expect(call({ action: 'fly' })).toEqual({ error: 'Unknown action: fly' })
    expect(call({})).toEqual({ error: 'Missing required argument: action' })
  })

  it('an aka name runs from the first word after punctuation, across newlines, to the last aka of its run', () => {
    call({
      action: 'add',
      content: 'Note: the lib, Left Pad aka leftpad; then foo bar also known as\nFB and x AKA y aka z.'
    })
    const db = new Database(join(home, 'memory_store.db'), { readonly: true })
    expect(db.prepare('SELECT name FROM entities ORDER BY entity_id').pluck().all()).toEqual([
      'Left Pad',
      'leftpad',
      'then foo bar also known as\nFB and x AKA y',
      'z'
    ])
    db.close()
  })

  it("entities as upstream extracts them (its greedy aka rule included); probe finds the entity's facts by HRR", () => {
    call({ action: 'add', content: 'Ada Lovelace aka Countess works with Charles Babbage' })
    call({ action: 'add', content: 'Charles Babbage designed the Analytical Engine' })
    call({ action: 'add', content: 'The team uses \'tabs\' and "Vitest"' })
    const db = new Database(join(home, 'memory_store.db'), { readonly: true })
    expect(db.prepare('SELECT name FROM entities ORDER BY entity_id').pluck().all()).toEqual([
      'Ada Lovelace',
      'Charles Babbage',
      'Countess works with Charles Babbage',
      'Analytical Engine',
      'Vitest',
      'tabs'
    ])
    expect(db.prepare('SELECT bank_name, fact_count FROM memory_banks').all()).toEqual([
      { bank_name: 'cat:general', fact_count: 3 }
    ])
    db.close()
    // Upstream's probe scores every fact with a vector (no keyword filter): (similarity + 1) / 2 × trust.
    // Its exact answers are pinned against upstream's own in upstream-golden.test.ts.
    const babbage = call({ action: 'probe', entity: 'Charles Babbage' })
    expect(babbage.count).toBe(3)
    for (const r of babbage.results) (expect(r.score).toBeGreaterThan(0), expect(r.score).toBeLessThan(0.5))
    expect(call({ action: 'reason' })).toEqual({ error: "reason requires 'entities' list" })
    expect(call({ action: 'contradict' })).toEqual({ results: [], count: 0 })
  })

  it('fact_feedback moves trust by +0.05 / −0.10, clamped to [0, 1]', () => {
    call({ action: 'add', content: 'Deploys happen on Fridays' })
    expect(call({ action: 'helpful', fact_id: 1 }, 'fact_feedback')).toEqual({
      fact_id: 1,
      old_trust: 0.5,
      new_trust: 0.55,
      helpful_count: 1
    })
    for (let i = 0; i < 8; i++) call({ action: 'unhelpful', fact_id: 1 }, 'fact_feedback')
    expect(call({ action: 'unhelpful', fact_id: 1 }, 'fact_feedback').new_trust).toBe(0)
    expect(call({ action: 'helpful', fact_id: 9 }, 'fact_feedback')).toEqual({ error: 'fact_id 9 not found' })
    expect(call({ action: 'helpful' }, 'fact_feedback')).toEqual({ error: 'Missing required argument: fact_id' })
  })
})

describe('hooks', () => {
  it('prefetch block, system prompt, memory-write mirror, auto_extract at session end, and facts upstream inserted', () => {
    expect(p.systemPromptBlock()).toContain('active and empty')
    p.onMemoryWrite('add', 'user', 'Prefers dark mode in every editor')
    p.onMemoryWrite('remove', 'memory', 'ignored')
    p.onSessionEnd([
      { role: 'user', content: 'I prefer short answers. What time is it? We decided to ship on Monday.' },
      { role: 'assistant', content: 'I prefer nothing.' }
    ])
    const db = new Database(join(home, 'memory_store.db'))
    db.prepare('INSERT INTO facts (content) VALUES (?)').run('The staging server is called bluebird')
    db.close()
    expect(p.systemPromptBlock()).toContain('3 facts')
    const rows = (
      p as unknown as { store: { list(o: object): Array<{ content: string; category: string }> } }
    ).store.list({ minTrust: 0, limit: 10 })
    // Upstream stores the whole message once (a preference wins over a decision), not its sentences.
    expect(rows.map((r) => [r.content, r.category]).sort()).toEqual([
      ['I prefer short answers. What time is it? We decided to ship on Monday.', 'user_pref'],
      ['Prefers dark mode in every editor', 'user_pref'],
      ['The staging server is called bluebird', 'general']
    ])
    expect(p.prefetch('what is the staging server called?')).toBe(
      '## Holographic Memory\n- [0.5] The staging server is called bluebird'
    )
    expect(p.prefetch('zebra')).toBe('')
  })

  it("prefetch prints trust with one decimal as Python's format does (an exact half rounds to even)", () => {
    const low = new HolographicProvider({
      config: { plugins: { 'hermes-memory-store': { min_trust_threshold: 0, db_path: '$HERMES_HOME/low.db' } } },
      home
    })
    low.initialize('s2', { hermesHome: home, platform: 'cli' })
    const add = (content: string) => JSON.parse(low.handleToolCall('fact_store', { action: 'add', content })).fact_id
    const rate = (id: number, delta: number) =>
      low.handleToolCall('fact_store', { action: 'update', fact_id: id, trust_delta: delta })
    rate(add('Quarterly reports go to Lin'), -0.25)
    rate(add('Quarterly reviews go to Sam'), 0.25)
    expect(low.prefetch('quarterly')).toBe(
      '## Holographic Memory\n- [0.8] Quarterly reviews go to Sam\n- [0.2] Quarterly reports go to Lin'
    )
    low.shutdown()
  })

  it('db_path expands $HERMES_HOME to the profile home', () => {
    const other = new HolographicProvider({
      config: { plugins: { 'hermes-memory-store': { db_path: '${HERMES_HOME}/facts/x.db' } } },
      home
    })
    expect(other.identitySignature()).toEqual({ db_path: join(home, 'facts', 'x.db') })
  })
})

describe('config as upstream converts it (float() / int() / truth value)', () => {
  const read = (section: Record<string, unknown>) =>
    holographicConfig({ plugins: { 'hermes-memory-store': section } }, home)

  it("strings as upstream's setup saves them, numbers, bools and Python's number syntax", () => {
    expect(read({ hrr_dim: '512', default_trust: '0.8', auto_extract: 'true' })).toMatchObject({
      hrrDim: 512,
      defaultTrust: 0.8,
      autoExtract: true
    })
    expect(read({})).toMatchObject({ hrrDim: 1024, defaultTrust: 0.5, minTrustThreshold: 0.3, autoExtract: false })
    // int(): floats truncate, strings must be base-10 integers (underscores, signs, spaces, other scripts' digits).
    expect(read({ hrr_dim: 512.9 }).hrrDim).toBe(512)
    expect(read({ hrr_dim: ' 1_024\n' }).hrrDim).toBe(1024)
    expect(read({ hrr_dim: '５１２' }).hrrDim).toBe(512)
    expect(read({ temporal_decay_half_life: '+30' }).temporalDecayHalfLife).toBe(30)
    // float(): Python's literal forms.
    expect(read({ default_trust: '.75', hrr_weight: '1e-1', min_trust_threshold: ' 0_5 ' })).toMatchObject({
      defaultTrust: 0.75,
      hrrWeight: 0.1,
      minTrustThreshold: 5
    })
    expect(read({ hrr_weight: '-Infinity' }).hrrWeight).toBe(-Infinity)
    expect(read({ default_trust: true }).defaultTrust).toBe(1)
    // `if not auto_extract`: any non-empty string is true, 'false' included (upstream's wizard writes it).
    for (const v of ['false', '0', 'no', 'yes', 1]) expect(read({ auto_extract: v }).autoExtract, String(v)).toBe(true)
    for (const v of ['', 0, false, null]) expect(read({ auto_extract: v }).autoExtract, String(v)).toBe(false)
  })

  it("a value Python cannot convert is upstream's error, raised at initialize and by every tool call", () => {
    expect(() => read({ hrr_dim: '512.0' })).toThrow(
      "plugins.hermes-memory-store.hrr_dim: invalid literal for int() with base 10: '512.0'"
    )
    expect(() => read({ default_trust: 'high' })).toThrow('could not convert string to float: ' + "'high'")
    expect(() => read({ hrr_weight: null })).toThrow(
      "float() argument must be a string or a real number, not 'NoneType'"
    )
    expect(() => read({ hrr_dim: '1__024' })).toThrow('invalid literal')
    expect(() => read({ hrr_dim: 0 })).toThrow('outside the widths Caduceus encodes')
    const bad = new HolographicProvider({
      config: { plugins: { 'hermes-memory-store': { db_path: '$HERMES_HOME/bad.db', default_trust: 'high' } } },
      home
    })
    expect(bad.identitySignature()).toEqual({ db_path: join(home, 'bad.db') })
    expect(() => bad.initialize('s3', { hermesHome: home, platform: 'cli' })).toThrow(
      'could not convert string to float'
    )
    expect(() => bad.handleToolCall('fact_store', { action: 'list' })).toThrow('could not convert string to float')
    bad.shutdown()
  })
})
