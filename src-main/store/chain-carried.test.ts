// A chain's earlier segment read with `carriedBy` (chain-carried.ts) leaves out exactly the rows its continuation
// carries copies of: never a row that only looks like one (the same text at another time, an identical earlier turn),
// never a row added after the carried run, nothing for a session that does not continue it. Copies written at their
// own times are known by their fields only as the parent's last rows (upstream's own continuations on a v21 home).
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { splitMergedSummary } from '@shared/contract'
import { SessionStore } from './session-store'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'

afterAll(cleanupTempDirs)

const T = 1_760_000_000

async function chain(copies: Array<{ role: string; content: string; timestamp: number }>, lateParent = false) {
  const store = new SessionStore(join(tempDir('cad-carried-'), 'state.db'), { profile: 'default' })
  await store.createSession('P', 'cli', {})
  // the same two turns twice: only the second pair (at its own times) is what the continuation copies
  await store.appendMessages('P', [
    { role: 'user', content: 'hi', timestamp: T },
    { role: 'assistant', content: 'ok', timestamp: T + 1 },
    { role: 'user', content: 'hi', timestamp: T + 2 },
    { role: 'assistant', content: 'ok', timestamp: T + 3 }
  ])
  await store.createSession('C', 'cli', { parentSessionId: 'P' })
  await store.appendMessages('C', [
    { role: 'user', content: '[summary]', timestamp: T + 10 },
    ...copies,
    { role: 'user', content: 'hi', timestamp: T + 11 }
  ])
  if (lateParent) await store.appendMessage('P', { role: 'user', content: 'written after', timestamp: T + 12 })
  const shown = (carriedBy?: string) =>
    store
      .getMessages({ sessionId: 'P', ...(carriedBy ? { carriedBy } : {}) })
      .items.map((m) => `${m.content}@${m.timestamp - T}`)
  return { store, shown }
}

describe('a parent read as part of its chain', () => {
  it('leaves out the copied run only, not the identical turn before it', async () => {
    const { store, shown } = await chain([
      { role: 'user', content: 'hi', timestamp: T + 2 },
      { role: 'assistant', content: 'ok', timestamp: T + 3 }
    ])
    expect(shown('C')).toEqual(['hi@0', 'ok@1'])
    expect(shown()).toHaveLength(4)
    expect(shown('P')).toHaveLength(4)
    store.close()
  })

  it('pairs copies stamped at another time by their fields when they are the parent’s last rows', async () => {
    // an older Caduceus, or upstream on a home without uids, writes the carried tail at the time it copies it
    const { store, shown } = await chain([
      { role: 'user', content: 'hi', timestamp: T + 9 },
      { role: 'assistant', content: 'ok', timestamp: T + 9 }
    ])
    // the identical turn before the carried run is a message of its own
    expect(shown('C')).toEqual(['hi@0', 'ok@1'])
    store.close()
  })

  it('leaves nothing out for copies at another time that are not the parent’s last rows', async () => {
    const { store, shown } = await chain(
      [
        { role: 'user', content: 'hi', timestamp: T + 9 },
        { role: 'assistant', content: 'ok', timestamp: T + 9 }
      ],
      true
    )
    expect(shown('C')).toHaveLength(5)
    store.close()
  })

  it('keeps a row the parent got after the carried run, and a row whose copy differs', async () => {
    const { store, shown } = await chain(
      [
        { role: 'user', content: 'hi', timestamp: T + 2 },
        { role: 'assistant', content: 'ok, edited', timestamp: T + 3 }
      ],
      true
    )
    expect(shown('C')).toEqual(['hi@0', 'ok@1', 'ok@3', 'written after@12'])
    store.close()
  })
})

describe("the chain's parts, as the session's details count them", () => {
  it('count what the transcript shows of each: an earlier part without the rows its continuation carries', async () => {
    const { store, shown } = await chain([
      { role: 'user', content: 'hi', timestamp: T + 2 },
      { role: 'assistant', content: 'ok', timestamp: T + 3 }
    ])
    await store.endSession('P', 'compression', T + 5)
    const counts = (open: string) =>
      store.getSessionDetail(open)!.lineage.chain.map((r) => [r.id, r.messageCount, r.chainMessages])
    const tip = store.getMessages({ sessionId: 'C' }).items.length
    // opened at the tip: the parent's four rows less the two carried (the part's own count stays four)
    expect(counts('C')).toEqual([
      ['P', 4, shown('C').length],
      ['C', tip, tip]
    ])
    expect(shown('C')).toHaveLength(2)
    // opened at the parent: it shows all it holds
    expect(counts('P')).toEqual([
      ['P', 4, 4],
      ['C', tip, tip]
    ])
    // a session outside any chain has no chain count
    await store.createSession('A', 'cli', {})
    expect(store.getSessionDetail('A')!.lineage.chain.map((r) => r.chainMessages)).toEqual([undefined])
    store.close()
  })
})

describe('a summary merged into the first kept message, on a home without uids', () => {
  it('leaves out that message’s original too: the merged row is still it', async () => {
    const { store, shown } = await chain([])
    // rebuilt: the continuation opens with the merged row (our compressor's framing, the kept text inside)
    await store.createSession('C2', 'cli', { parentSessionId: 'P' })
    await store.appendMessages('C2', [
      {
        role: 'user',
        content: '[carried over]\nhi\n\n[summary] they talked',
        timestamp: T + 2,
        displayMetadata: { summaryMerged: true }
      },
      { role: 'assistant', content: 'ok', timestamp: T + 3 }
    ])
    expect(shown('C2')).toEqual(['hi@0', 'ok@1'])
    store.close()
  })

  it('keeps the original when the merged row does not hold its text', async () => {
    const { store, shown } = await chain([])
    await store.createSession('C2', 'cli', { parentSessionId: 'P' })
    await store.appendMessages('C2', [
      { role: 'user', content: '[summary] they talked', timestamp: T + 2, displayMetadata: { summaryMerged: true } },
      { role: 'assistant', content: 'ok', timestamp: T + 3 }
    ])
    expect(shown('C2')).toEqual(['hi@0', 'ok@1', 'hi@2'])
    store.close()
  })
})

describe('a continuation upstream wrote on a home without uids (its copies at their own times)', () => {
  // test/fixtures/upstream/compression-interop: upstream v21's ContextCompressor compressed each session and its agent
  // wrote the continuation (its protected head, the summary, the protected tail); scripts/golden/compression_interop.py
  it('shows each message once: the parent without its carried tail, the continuation without its copied head', () => {
    const path = join(tempDir('cad-carried-up-'), 'state.db')
    copyFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'upstream', 'compression-interop', 'state.db'), path)
    const store = new SessionStore(path, { profile: 'default' })
    try {
      // a merged row reads as the message it holds (the transcript shows its words, the summary folded)
      const texts = (sessionId: string, carriedBy?: string) =>
        store
          .getMessages({ sessionId, ...(carriedBy ? { carriedBy } : {}) })
          .items.map((m) => (m.summaryMerged ? splitMergedSummary(m.content)!.kept : (m.content ?? '')))
          .map((t) => t.split(' lorem')[0])
      // the continuation carries question 4 on; merged, upstream folded question 4 into its summary row (no mark says
      // so on v21 but the row's layout), and that row is where it shows
      const check = (parent: string, child: string, lastKept: string, head: number) => {
        const all = texts(parent)
        expect(all).toHaveLength(16)
        const kept = texts(parent, child)
        expect(kept.at(-1)).toBe(lastKept)
        expect(kept).toEqual(all.slice(0, kept.length))
        const rest = texts(child)
        // the copies of the parent's first messages are not shown again: the continuation opens with the summary
        expect(rest[0]).not.toBe(all[0])
        const whole = store.getMessagesAsConversation(child).map((m) => String(m.content).split(' lorem')[0])
        expect(whole.slice(0, head)).toEqual(all.slice(0, head))
        const carried = all.slice(kept.length)
        expect(carried.every((t) => rest.includes(t))).toBe(true)
        // every message of the chain once
        const chain = [...kept, ...rest].filter((t) => t.startsWith('UP-'))
        expect(new Set(chain).size).toBe(chain.length)
      }
      check('up-standalone', 'up-standalone-2', 'UP-STANDALONE answer 3', 3)
      check('up-merged', 'up-merged-2', 'UP-MERGED answer 3', 2)
      // the same row as an earlier upstream merged it, the other way round: the summary (its banner first) and its end
      // line, then the kept question; still that question, shown once, where the conversation goes on
      const db = rawDb(store)
      const row = db
        .prepare<[], { id: number; content: string }>(
          "SELECT id, content FROM messages WHERE session_id = 'up-merged-2' AND content LIKE '[PRIOR CONTEXT%'"
        )
        .get()!
      const { kept, summary } = splitMergedSummary(row.content)!
      const end = '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---'
      db.prepare('UPDATE main.messages SET content = ? WHERE id = ?').run(`${summary}\n\n${end}\n\n${kept}`, row.id)
      expect(splitMergedSummary(`${summary}\n\n${end}\n\n${kept}`)).toEqual({ kept, summary })
      check('up-merged', 'up-merged-2', 'UP-MERGED answer 3', 2)
    } finally {
      store.close()
    }
  })
})

describe('a continuation that opens with copies of the parent’s head (upstream’s protected first messages), by uid', () => {
  it('leaves out the carried tail, not the head: the parent keeps its opening where it was said', async () => {
    const path = join(tempDir('cad-carried-v31-'), 'state.db')
    copyFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'upstream', 'nous-v31', 'state.db'), path)
    const store = new SessionStore(path, { profile: 'default' })
    try {
      await store.createSession('P', 'cli', {})
      await store.appendMessages(
        'P',
        ['q0', 'a0', 'q1', 'a1', 'q2', 'a2'].map((c, i) => ({
          role: c.startsWith('q') ? 'user' : 'assistant',
          content: c,
          timestamp: T + i
        }))
      )
      const rows = store.getMessagesAsConversation('P')
      await store.endSession('P', 'compression')
      await store.createSession('C', 'cli', { parentSessionId: 'P' })
      // upstream's shape: the head as it was, the summary, then the tail (each copy keeps its uid, at its own time)
      await store.appendMessages('C', [
        ...[0, 1].map((i) => ({ role: rows[i]!.role, content: rows[i]!.content, identity: rows[i]!.identity })),
        { role: 'user', content: '[summary of q1/a1]' },
        ...[4, 5].map((i) => ({ role: rows[i]!.role, content: rows[i]!.content, identity: rows[i]!.identity }))
      ])
      const shown = store.getMessages({ sessionId: 'P', carriedBy: 'C' }).items.map((m) => m.content)
      expect(shown).toEqual(['q0', 'a0', 'q1', 'a1'])
      // …and the continuation shows its head copies no more: its part opens with the summary
      const continued = store.getMessages({ sessionId: 'C' }).items.map((m) => m.content)
      expect(continued).toEqual(['[summary of q1/a1]', 'q2', 'a2'])
      // as the session's details count the parts: 4 + 3, each message once
      expect(store.getSessionDetail('C')!.lineage.chain.map((r) => r.chainMessages)).toEqual([4, 3])
    } finally {
      store.close()
    }
  })
})

describe('a message said twice still shows twice', () => {
  it('the same words at a continuation’s start are left out only as a copy of the parent’s opening', async () => {
    const store = new SessionStore(join(tempDir('cad-carried-twice-'), 'state.db'), { profile: 'default' })
    try {
      // the parent opens with the same exchange twice; upstream's continuation copies the first two as its head
      await store.createSession('P', 'cli', {})
      await store.appendMessages(
        'P',
        ['hi', 'ok', 'hi', 'ok', 'q', 'a'].map((c, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: c,
          timestamp: T + i
        }))
      )
      await store.endSession('P', 'compression')
      await store.createSession('C', 'cli', { parentSessionId: 'P' })
      await store.appendMessages('C', [
        { role: 'user', content: 'hi', timestamp: T + 20 },
        { role: 'assistant', content: 'ok', timestamp: T + 20 },
        { role: 'user', content: '[summary]', timestamp: T + 20 },
        { role: 'assistant', content: 'a', timestamp: T + 20 },
        // the user says it again, after the compression
        { role: 'user', content: 'hi', timestamp: T + 21 }
      ])
      const page = (sessionId: string, carriedBy?: string) =>
        store.getMessages({ sessionId, ...(carriedBy ? { carriedBy } : {}) }).items.map((m) => m.content)
      expect(page('P', 'C')).toEqual(['hi', 'ok', 'hi', 'ok', 'q'])
      expect(page('C')).toEqual(['[summary]', 'a', 'hi'])
      // a search hit on a head copy opens the continuation at it: that row shows, the other copy stays left out
      const summaryId = store.getMessages({ sessionId: 'C' }).items[0]!.id
      const hit = store.getMessages({ sessionId: 'C', aroundId: summaryId - 1 }).items.map((m) => m.content)
      expect(hit).toEqual(['ok', '[summary]', 'a', 'hi'])
      // a continuation Caduceus wrote opens with its summary: the user's own words after it are never a head copy
      await store.createSession('D', 'cli', {})
      await store.appendMessages('D', [
        { role: 'user', content: 'hi', timestamp: T },
        { role: 'assistant', content: 'ok', timestamp: T + 1 }
      ])
      await store.endSession('D', 'compression')
      await store.createSession('E', 'cli', { parentSessionId: 'D' })
      await store.appendMessages('E', [
        { role: 'user', content: '[summary]', timestamp: T + 10 },
        { role: 'assistant', content: 'ok', timestamp: T + 1 },
        { role: 'user', content: 'hi', timestamp: T + 11 }
      ])
      expect(page('E')).toEqual(['[summary]', 'ok', 'hi'])
      // each later part of a chain opens with its own summary, which may read like its parent's, then the question:
      // no head copy either (the demo home's chains are written so)
      const summary = '[CONTEXT COMPACTION] Summary of the earlier conversation:\n\n- papers collected'
      await store.createSession('G', 'cli', {})
      await store.appendMessages('G', [
        { role: 'user', content: 'collect papers', timestamp: T },
        { role: 'assistant', content: 'found 3', timestamp: T + 1 }
      ])
      await store.endSession('G', 'compression')
      for (const [id, parent, at] of [
        ['H', 'G', 50],
        ['I', 'H', 60]
      ] as const) {
        await store.createSession(id, 'cli', { parentSessionId: parent })
        await store.appendMessages(id, [
          { role: 'user', content: summary, timestamp: T + at },
          { role: 'user', content: 'collect papers', timestamp: T + at + 1 },
          { role: 'assistant', content: `found more in ${id}`, timestamp: T + at + 2 }
        ])
        if (id === 'H') await store.endSession('H', 'compression')
      }
      expect(page('I')).toEqual([summary, 'collect papers', 'found more in I'])
      // a branch is its own conversation: its copies of the parent's opening stay
      await store.createSession('B', 'cli', { parentSessionId: 'D', modelConfig: { _branched_from: 'D' } })
      await store.appendMessages('B', [
        { role: 'user', content: 'hi', timestamp: T + 30 },
        { role: 'assistant', content: 'ok', timestamp: T + 30 },
        { role: 'user', content: 'other', timestamp: T + 31 }
      ])
      expect(page('B')).toEqual(['hi', 'ok', 'other'])
    } finally {
      store.close()
    }
  })
})
