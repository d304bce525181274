// v31 message identity read back (NousResearch/hermes-agent schema 31), on a copy of the golden v31 home
// (test/fixtures/upstream/nous-v31: upstream's own DDL and triggers). Upstream's restore pairs a result row stored
// without `tool_call_uid` (an older build's, a lone append) with the uid its call's row gave, never across a user
// turn and never through a row without a map; a call a repaired history drops keeps no uid.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './session-store'
import { rawDb } from './test-fixtures/raw-db'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const FIXTURE = join(__dirname, '..', '..', 'test', 'fixtures', 'upstream', 'nous-v31', 'state.db')
const HEATER = '20251201_090000_a1b2c3'

afterAll(cleanupTempDirs)

function v31Store(): SessionStore {
  const path = join(tempDir('cad-v31-read-'), 'state.db')
  copyFileSync(FIXTURE, path)
  return new SessionStore(path)
}

describe('v31 identity on a restored history', () => {
  it("a result stored without its call's uid is read with the uid its call's row gave", () => {
    const store = v31Store()
    try {
      const db = rawDb(store)
      // the two results as an older build left them: no tool_call_uid, the assistant row's map in place
      db.prepare("UPDATE messages SET tool_call_uid = NULL WHERE session_id = ? AND role = 'tool'").run(HEATER)
      const map = JSON.parse(
        db
          .prepare<[string], { m: string }>(
            "SELECT tool_call_uids AS m FROM messages WHERE session_id = ? AND role = 'assistant' AND tool_calls IS NOT NULL"
          )
          .get(HEATER)!.m
      ) as Record<string, string>
      const results = store.getMessagesAsConversation(HEATER).filter((m) => m.role === 'tool')
      expect(results.map((m) => [m.tool_call_id, m.identity?.toolCallUid])).toEqual([
        ['call_h1', map.call_h1],
        ['call_h2', map.call_h2]
      ])
    } finally {
      store.close()
    }
  })

  it('never pairs across a user turn, nor through a call row without a map', async () => {
    const store = v31Store()
    try {
      await store.createSession('P1', 'cli')
      await store.appendMessages('P1', [
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_x', name: 'lookup', arguments: '{}' }] },
        { role: 'tool', content: 'r1', toolCallId: 'call_x', toolName: 'lookup' },
        { role: 'user', content: 'q2' },
        { role: 'tool', content: 'stray', toolCallId: 'call_x', toolName: 'lookup' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_x', name: 'lookup', arguments: '{}' }] },
        { role: 'tool', content: 'r2', toolCallId: 'call_x', toolName: 'lookup' }
      ])
      const db = rawDb(store)
      db.prepare("UPDATE messages SET tool_call_uid = NULL WHERE session_id = 'P1' AND role = 'tool'").run()
      // the second call's row as a pre-v31 writer left it: calls, no map
      db.prepare(
        "UPDATE messages SET tool_call_uids = NULL WHERE session_id = 'P1' AND id = (SELECT MAX(id) FROM messages WHERE session_id = 'P1' AND role = 'assistant')"
      ).run()
      const read = store.getMessagesAsConversation('P1')
      const first = read[1]!.identity!.toolCallUids!.call_x
      expect(read.filter((m) => m.role === 'tool').map((m) => m.identity?.toolCallUid)).toEqual([
        first,
        undefined,
        undefined
      ])
    } finally {
      store.close()
    }
  })

  it('a repaired history strips an unanswered call from the uid map too', async () => {
    const store = v31Store()
    try {
      await store.createSession('R1', 'cli')
      // a crash mid-turn: two calls made, one answered
      await store.appendMessages('R1', [
        { role: 'user', content: 'look both up' },
        {
          role: 'assistant',
          content: 'checking',
          toolCalls: [
            { id: 'call_a', name: 'lookup', arguments: '{}' },
            { id: 'call_b', name: 'lookup', arguments: '{}' }
          ]
        },
        { role: 'tool', content: 'a found', toolCallId: 'call_a', toolName: 'lookup' }
      ])
      const raw = store.getMessagesAsConversation('R1')
      const stored = raw[1]!.identity!.toolCallUids!
      expect(Object.keys(stored)).toEqual(['call_a', 'call_b'])
      const repaired = store.getMessagesAsConversation('R1', { repairAlternation: true })
      expect(repaired[1]!.tool_calls!.map((c) => c.id)).toEqual(['call_a'])
      expect(repaired[1]!.identity).toEqual({
        messageUid: raw[1]!.identity!.messageUid,
        toolCallUids: { call_a: stored.call_a }
      })
      expect(repaired[2]!.identity!.toolCallUid).toBe(stored.call_a)
      // no call answered: no map left at all
      await store.createSession('R2', 'cli')
      await store.appendMessages('R2', [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'let me see', toolCalls: [{ id: 'call_c', name: 'lookup', arguments: '{}' }] }
      ])
      const [, lone] = store.getMessagesAsConversation('R2', { repairAlternation: true })
      expect(lone!.tool_calls).toBeUndefined()
      expect(lone!.identity!.toolCallUids).toBeUndefined()
    } finally {
      store.close()
    }
  })
})
