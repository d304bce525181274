// A branch from an API conversation too long to compare whole pairs each request turn before the part it read with
// the stored turn it copies (conversation.ts olderCopies), reading older turns a batch at a time. A difference in the
// request (an edited turn, one added or left out) leaves that turn without a copy, and the pairing goes on past it.
import { describe, expect, it } from 'vitest'
import { planConversation, type ConversationSessions, type StoredTurn, type Turn } from './conversation'

/** The turns a new session is seeded with, as the host is handed them. */
type SeedTurn = Parameters<ConversationSessions['seed']>[1][number]

const BATCH = 5
const TAIL = 4

/** A stored session of `texts` (a user's where `users` says, q… too), row ids from 1, read as the host reads. */
function sessions(texts: string[], users: Set<number>, seeded: SeedTurn[][]): ConversationSessions {
  const turns: StoredTurn[] = texts.map((content, i) => ({
    role: content.startsWith('q') || users.has(i) ? 'user' : 'assistant',
    content,
    id: i + 1,
    rows: [i + 1],
    at: i
  }))
  const before = (row: number, n: number) => {
    const older = turns.filter((t) => t.id < row)
    return { turns: older.slice(-n), more: older.length > n }
  }
  // the conversation is stored under the id its first message derives: the first one asked for
  let long: string | undefined
  return {
    turns: (id) => ((long ??= id) === id ? { turns: turns.slice(-TAIL), whole: false } : null),
    turnsBefore: (_id, row) => before(row, BATCH),
    branches: () => [],
    opening: () => [],
    replying: () => [],
    replied: () => [],
    seed: async (_id, t) => void seeded.push(t),
    settleTask: async () => '',
    retrying: (attempt) => attempt()
  } as ConversationSessions
}

const asTurn = (content: string): Turn => ({ role: content.startsWith('q') ? 'user' : 'assistant', content })

describe('a branch of a long conversation pairs its older turns past a difference', () => {
  it('an edit, an added turn, a turn left out and a continued reply: every other turn copies its stored row', async () => {
    // 20 questions and answers; the answer to q3 was continued: stored as the answer, the user's echo of it (how
    // upstream stores a continue request) and the continuation, sent back as one answer
    const stored = Array.from({ length: 20 }, (_, i) =>
      i === 3 ? ['q3', 'a3 begun', 'a3 begun', 'and ended'] : [`q${i}`, `a${i}`]
    ).flat()
    const seeded: SeedTurn[][] = []
    const store = sessions(stored, new Set([8]), seeded)
    // a6 edited, a question and answer added after a10, q14 and its answer left out
    const sent = stored
      .filter((t) => t !== 'a3 begun' && t !== 'and ended' && t !== 'q14' && t !== 'a14')
      .flatMap((t) =>
        t === 'q3' ? [t, 'a3 begun and ended'] : t === 'a6' ? ['a6 edited'] : t === 'a10' ? [t, 'qx', 'ax'] : [t]
      )
    const plan = await planConversation(store, {
      system: '',
      history: sent.map(asTurn),
      text: 'next',
      nowSec: 1,
      // another request is answering in the stored session: this one goes on in a branch
      claim: (id) => store.turns(id) === null
    })
    expect(plan.kind).toBe('continue')
    const rowsOf = (t: string) => [stored.indexOf(t) + 1]
    expect(seeded[0]!.map((t) => [t.content, t.copyOf])).toEqual(
      sent.map((t) => [
        t,
        t === 'a6 edited' || t.endsWith('x') ? undefined : t === 'a3 begun and ended' ? [8, 9, 10] : rowsOf(t)
      ])
    )
  })
})
