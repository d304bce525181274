import { describe, expect, it } from 'vitest'
import type { MemoryEvent } from '@shared/contract'
import { message } from '../test-utils/fixtures'
import { eventsOfTurn, foldCounts, recallText } from './turn-memory'

let seq = 0
const ev = (patch: Partial<MemoryEvent>): MemoryEvent => ({
  id: ++seq,
  profile: 'default',
  provider: 'holographic',
  kind: 'hook',
  name: 'x',
  sessionId: 's1',
  turnId: 't1',
  ok: true,
  latencyMs: null,
  summary: '',
  size: null,
  at: 1000,
  ...patch
})

describe("a turn's memory fold counts as the Memory page does", () => {
  it('recalls ok/failed, writes (not reads), syncs that landed and failed ones apart; failures first', () => {
    const m = message(1, 's1', { role: 'user', timestamp: 999 })
    const all = [
      ev({
        kind: 'prefetch',
        name: 'prefetch',
        size: 40,
        latencyMs: 12.4,
        summary: 'query "my editor?" → recalled: 1'
      }),
      ev({
        kind: 'prefetch',
        name: 'prefetch',
        provider: 'mem0',
        ok: false,
        summary: 'query "my editor?" → failed: offline'
      }),
      ev({ kind: 'tool_call', name: 'fact_store', summary: 'fact_store {"action":"search"}' }),
      ev({ kind: 'tool_call', name: 'fact_store', summary: 'fact_store {"action":"add"}' }),
      ev({ kind: 'write', name: 'fact_store:add', summary: 'vim' }),
      ev({ kind: 'sync', name: 'sync_turn' }),
      ev({ kind: 'error', name: 'sync_turn', provider: 'mem0', ok: false, summary: 'sync down' }),
      ev({ kind: 'hook', name: 'on_memory_write' }),
      ev({ kind: 'sync', name: 'sync_turn', turnId: 't2' })
    ]
    const events = eventsOfTurn(all, m)
    expect(events.map((e) => e.name)).toEqual([
      'prefetch',
      'prefetch',
      'fact_store',
      'fact_store',
      'fact_store:add',
      'sync_turn',
      'sync_turn'
    ])
    const c = foldCounts(events)
    expect([c.recalled, c.failed, c.written, c.synced, c.syncFailed].map((x) => x.length)).toEqual([1, 1, 1, 1, 1])
    expect(c.shown.slice(0, 2).map((e) => [e.provider, e.kind])).toEqual([
      ['mem0', 'prefetch'],
      ['mem0', 'error']
    ])
    expect(recallText(events[0]!)).toBe('ok “my editor?”: 40 chars in 12ms')
    expect(recallText(events[1]!)).toBe('failed “my editor?”: offline')
  })
})
