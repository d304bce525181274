// v31 identity of an API conversation's branch from a session too long or too compressed to compare turn by turn
// (NousResearch/hermes-agent schema 31, on a copy of the golden v31 home). Upstream's branch copies each message with
// its identity (agent/message_metadata.py message_identity: "a branch/seed copy writes fresh rows … a row without
// them would restore with a different uid"); a branch of a short session here already did, a long or compressed one
// minted new uids for every copied message.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { StoreRegistry, type SessionStore } from '../../store'
import { planConversation, type Turn } from '../../channels/conversation'
import { apiConversations } from './api-conversations'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'upstream', 'nous-v31', 'state.db')

afterAll(cleanupTempDirs)

function v31Stores(): StoreRegistry {
  const dir = tempDir('cad-v31-branch-')
  copyFileSync(FIXTURE, join(dir, 'state.db'))
  return new StoreRegistry(dir)
}

const uidsOf = (store: SessionStore, id: string) =>
  store.getMessagesAsConversation(id).map((m) => [m.role, m.content, m.identity?.messageUid])

/** The conversation's session (the derived id of its first message) as planned, stored by the caller. */
async function derivedId(stores: StoreRegistry, first: string): Promise<string> {
  const plan = await planConversation(apiConversations(stores, 'default'), {
    system: '',
    history: [],
    text: first,
    nowSec: 0
  })
  return plan.sessionId
}

/** A request while another request runs in `busy`: the conversation goes on in a branch. */
async function branchWhileBusy(stores: StoreRegistry, busy: string, history: Turn[]): Promise<string> {
  const plan = await planConversation(apiConversations(stores, 'default'), {
    system: '',
    history,
    text: 'and now?',
    nowSec: 5,
    claim: (id) => id !== busy
  })
  expect(plan.kind).toBe('continue')
  expect(plan.sessionId).not.toBe(busy)
  return plan.sessionId
}

describe('v31 identity of a branch from a long or compressed API session', () => {
  // the summary as Caduceus writes it (marked by its display kind), and as upstream does (known by its opening alone)
  it.each([
    ['Caduceus', { role: 'user', content: '[summary of u1/a1]', displayKind: 'compression_summary' }],
    ['upstream', { role: 'user', content: '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns …\nu1/a1' }],
    // a later upstream's summary in an opening no reader knows: its v31 flag alone says what it is
    ['upstream v31', { role: 'user', content: '[HANDOFF NOTES — a later upstream] u1/a1', compressedSummary: true }]
  ] as const)(
    'a session %s compressed: the branch keeps the uid of every message it copies, read from the chain',
    async (_, summary) => {
      const stores = v31Stores()
      try {
        const store = stores.get('default')
        const root = await derivedId(stores, 'u1')
        await store.createSession(root, 'api_server')
        await store.appendMessages(root, [
          { role: 'user', content: 'u1' },
          { role: 'assistant', content: 'a1' },
          { role: 'user', content: 'u2' },
          { role: 'assistant', content: 'a2' }
        ])
        const parent = store.getMessagesAsConversation(root)
        // compression: the continuation holds the summary, copies of the last kept turn (their identity kept), then more
        await store.endSession(root, 'compression')
        const tip = `${root}-c`
        await store.createSession(tip, 'api_server', { parentSessionId: root })
        await store.appendMessages(tip, [
          summary,
          { role: 'user', content: 'u2', identity: parent[2]!.identity },
          { role: 'assistant', content: 'a2', identity: parent[3]!.identity },
          { role: 'user', content: 'u3' },
          { role: 'assistant', content: 'a3' }
        ])
        expect(store.resolveResumeSessionId(root)).toBe(tip)
        const history: Turn[] = ['u1', 'a1', 'u2', 'a2', 'u3', 'a3'].map((c) => ({
          role: c.startsWith('u') ? 'user' : 'assistant',
          content: c
        }))
        const branch = await branchWhileBusy(stores, root, history)
        const carried = uidsOf(store, tip).slice(1)
        expect(uidsOf(store, branch)).toEqual([...uidsOf(store, root).slice(0, 2), ...carried])
      } finally {
        stores.closeAll()
      }
    }
  )

  it('a session longer than one comparison read: the branch keeps the uid of every turn it copies, read a batch at a time', async () => {
    const stores = v31Stores()
    try {
      const store = stores.get('default')
      const sid = await derivedId(stores, 'q0')
      await store.createSession(sid, 'api_server')
      // 2,500 messages: the comparison read holds the latest 1,000, and the older 1,500 are paired in batches of 500
      const said = Array.from({ length: 2500 }, (_, i) => (i % 2 ? `r${(i - 1) / 2}` : `q${i / 2}`))
      const turn = (c: string): Turn => ({ role: c.startsWith('q') ? 'user' : 'assistant', content: c })
      await store.appendMessages(sid, said.map(turn))
      // The client's history differs in three places before the latest 1,000: an early question edited (in the first
      // older batch), further back a question and answer it added, and a question with its answer left out. Every
      // other turn is the parent's.
      const sent = said
        .filter((c) => c !== 'q200' && c !== 'r200')
        .flatMap((c) => (c === 'q600' ? ['q600, edited'] : c === 'r400' ? [c, 'q-extra', 'r-extra'] : [c]))
      // compared as one text each: a deep equality of 2,500 rows costs more than the branch itself
      const lines = (id: string) => uidsOf(store, id).map((r) => r.join('|'))
      const parent = lines(sid)
      const branch = await branchWhileBusy(stores, sid, sent.map(turn))
      // the parent's rows stay as they were: only the branch is written
      expect(lines(sid).join('\n')).toBe(parent.join('\n'))
      const rows = lines(branch)
      expect(rows.map((r) => r.split('|')[1])).toEqual(sent)
      expect(new Set(parent.map((r) => r.split('|')[2])).size).toBe(said.length)
      // the edited question and the added turns are messages of the branch's own: uids of their own
      const own = rows.filter((r) => /\|(q600, edited|q-extra|r-extra)\|/.test(r))
      expect(own).toHaveLength(3)
      for (const r of own) expect(parent.map((p) => p.split('|')[2])).not.toContain(r.split('|')[2])
      const kept = parent.filter((r) => !/^user\|q(200|600)\||^assistant\|r200\|/.test(r))
      expect(rows.filter((r) => !own.includes(r)).join('\n')).toBe(kept.join('\n'))
    } finally {
      stores.closeAll()
    }
  })
})
