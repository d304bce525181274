// Odd tool_calls columns written by upstream (scripts/golden/fidelity.py, session `odd`): a lone call object and a
// JSON string wrapping a list. Upstream's reader decodes the column once (upstream.json `view`: a dict, a string),
// and its consumers act only on a list, so neither is a call to upstream. Caduceus shows and resends no call for
// them either, but its transcript says a tool-call record was there instead of showing nothing; the column stays.
import { copyFileSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { MESSAGE_PREVIEW_CHARS } from '../shared/contract'
import { SessionStore } from '../src-main/store'
import { openStateDb } from '../src-main/store/open'
import { conversation, messagePage } from '../src-main/store/read-messages'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

const gold = resolve(import.meta.dirname, 'fixtures/upstream/fidelity')
type Rec = Record<string, unknown>
const upstreamView = (
  JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as { default: { view: { odd: { messages: Rec[] } } } }
).default.view.odd.messages

afterAll(cleanupTempDirs)

describe('tool_calls that upstream does not read as a list (fidelity home, session odd)', () => {
  const path = join(tempDir('cad-odd-calls-'), 'state.db')
  copyFileSync(join(gold, 'home', 'state.db'), path)
  const db = openStateDb(path, { readonly: true }).sqlite
  const stored = () =>
    db.prepare(`SELECT id, tool_calls FROM messages WHERE session_id = 'odd' ORDER BY id`).all() as Rec[]
  const before = stored()

  it('flags every row upstream reads as a non-list, shows no call for it, and leaves the rest unflagged', () => {
    const page = messagePage(db, 'odd').items
    expect(page.map((m) => m.id)).toEqual(upstreamView.map((m) => m.id))
    const odd = upstreamView.filter((m) => m.tool_calls != null && !Array.isArray(m.tool_calls)).map((m) => m.id)
    expect(odd).toHaveLength(2) // the lone object and the double-encoded list
    for (const m of page) {
      if (odd.includes(m.id)) {
        expect(m.toolCallsMalformed).toBe(true)
        expect(m.toolCalls).toBeNull()
      } else expect(m.toolCallsMalformed).toBeUndefined()
    }
  })

  it('resends no call for those rows (as upstream sends no usable one) and never rewrites the column', () => {
    const calls = conversation(db, 'odd').filter((m) => m.tool_calls)
    expect(calls).toEqual([])
    expect(stored()).toEqual(before)
    db.close()
  })
})

describe('a tool_calls value too long for the page (over MESSAGE_PREVIEW_CHARS), or a list of what are no calls', () => {
  it('is still flagged when it is not a list, and still shows its calls when it is one; a list entry with no name is flagged', async () => {
    const path = join(tempDir('cad-long-calls-'), 'state.db')
    const store = new SessionStore(path, { profile: 'default' })
    await store.createSession('s', 'cli')
    store.close()
    const args = 'x'.repeat(MESSAGE_PREVIEW_CHARS + 100)
    const call = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: args } }
    const db = new Database(path)
    const put = db.prepare(
      "INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES ('s', 'assistant', NULL, ?, ?)"
    )
    put.run(JSON.stringify(call), 1) // a lone call object, as upstream never reads it
    put.run(JSON.stringify(JSON.stringify([call])), 2) // a JSON string wrapping the list
    put.run(`not json ${args}`, 3)
    put.run(JSON.stringify([call]), 4)
    // a list with nothing in it that reads as a call showed nothing at all, not even the notice
    put.run(JSON.stringify([1, null, 'x', { function: null }]), 5)
    put.run(JSON.stringify([{ id: 'c2' }, { id: 'c3', function: { name: 'terminal', arguments: '{}' } }]), 6)
    db.close()
    const read = openStateDb(path, { readonly: true }).sqlite
    try {
      const page = messagePage(read, 's').items
      expect(page.map((m) => [m.toolCallsMalformed ?? false, m.toolCalls?.map((c) => c.name) ?? null])).toEqual([
        [true, null],
        [true, null],
        [true, null],
        [false, ['read_file']],
        [true, null],
        [true, ['terminal']]
      ])
    } finally {
      read.close()
    }
  })
})
