// Non-finite numbers in upstream's JSONL, both ways (golden from upstream's own code: scripts/golden/nonfinite.py,
// test/fixtures/upstream/nonfinite/): upstream's import keeps a time read as infinite, and its CLI export writes it
// as Python's json writes it, a bare `Infinity` / `-Infinity` token. Caduceus's export wrote `null` there (so a
// round trip through either program lost the value) and its import refused the line upstream wrote.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { parsePyJson, pyJson } from '../shared/contract/py-text'

const gold = JSON.parse(
  readFileSync(join(resolve(import.meta.dirname, '..'), 'test/fixtures/upstream/nonfinite/upstream.json'), 'utf8')
) as {
  input: string[]
  stored: Record<string, { started_at: string; ended_at: string; timestamps: string[] }>
  export: string[]
}

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Python's repr of a stored float, as the golden records it. */
const pyRepr = (v: unknown) =>
  v === null
    ? 'None'
    : v === Infinity
      ? 'inf'
      : v === -Infinity
        ? '-inf'
        : Number.isInteger(v)
          ? `${String(v)}.0`
          : String(v)

type Rec = Record<string, unknown> & { id: string; messages: Array<Record<string, unknown>> }
const times = (r: Rec) => ({
  started_at: r.started_at,
  ended_at: r.ended_at,
  last_active: r.last_active,
  timestamps: r.messages.map((m) => m.timestamp)
})

describe("non-finite numbers in upstream's JSONL", () => {
  it('imports the Infinity tokens upstream writes and exports them as upstream does, not as null', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-nonfinite-'))
    dirs.push(home)
    const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    let exported: string
    try {
      const r = await host.dispatcher.invoke('sessions.import', { profile: 'default', content: gold.input.join('\n') })
      expect((r as { output: unknown }).output).toMatchObject({ imported: 2, skipped: 0, errors: [] })
      const out = await host.dispatcher.invoke('sessions.export', { profile: 'default', format: 'jsonl' })
      exported = (out as { output: { content: string } }).output.content
    } finally {
      await host.close()
    }
    // stored as upstream's import stores them
    const db = new Database(join(home, 'state.db'), { readonly: true })
    try {
      for (const [id, want] of Object.entries(gold.stored)) {
        const s = db.prepare('SELECT started_at, ended_at FROM sessions WHERE id = ?').get(id) as Record<
          string,
          unknown
        >
        const ts = db.prepare('SELECT timestamp FROM messages WHERE session_id = ? ORDER BY id').pluck().all(id)
        expect({ started_at: pyRepr(s.started_at), ended_at: pyRepr(s.ended_at), timestamps: ts.map(pyRepr) }).toEqual(
          want
        )
      }
    } finally {
      db.close()
    }
    // exported as upstream exports them: the same sessions in the same order, the same numbers, the same tokens
    const lines = exported.split('\n').filter(Boolean)
    const ours = lines.map((l) => parsePyJson(l) as Rec)
    const theirs = gold.export.map((l) => parsePyJson(l) as Rec)
    expect(ours.map((r) => r.id)).toEqual(theirs.map((r) => r.id))
    expect(ours.map(times)).toEqual(theirs.map(times))
    expect(lines[0]).toContain('"ended_at": Infinity')
    expect(lines[0]).toContain('"last_active": Infinity')
    expect(lines[0]).toContain('"timestamp": -Infinity')
  })

  it('reads the tokens only outside strings, and writes text that only looks like the marker as text', () => {
    const text = '{"a": "NaN Infinity \\" -Infinity", "b": [NaN, -Infinity, Infinity], "c": 1}'
    const v = parsePyJson(text) as { a: string; b: number[]; c: number }
    expect(v.a).toBe('NaN Infinity " -Infinity')
    expect(v.b).toEqual([NaN, -Infinity, Infinity])
    expect(pyJson({ s: 'Infinity', n: -Infinity, z: NaN, k: 2 })).toBe(
      '{"s": "Infinity", "n": -Infinity, "z": NaN, "k": 2}'
    )
    expect(() => parsePyJson('{"a": Infinit}')).toThrow()
    // json.dumps, as stored content is written: each token for its own value (an infinity was written NaN)
    expect(pyJson([Infinity, -Infinity, NaN])).toBe('[Infinity, -Infinity, NaN]')
  })
})
