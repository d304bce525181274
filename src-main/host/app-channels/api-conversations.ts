/**
 * The API server's view of a profile's stored conversations (channels/conversation.ts decides; this reads and seeds
 * through the profile's SessionStore, since channels/ cannot import store/).
 */
import type { ConversationSessions, StoredTurn } from '../../channels'
import type { Services } from '../services'

const MAX_COMPARED = 1000

export function apiConversations(stores: Services['stores'], profile: string): ConversationSessions {
  const store = () => stores.get(profile)
  return {
    turns(sessionId) {
      const s = store()
      if (!s.getSession(sessionId)) return null
      const page = s.getMessages({ sessionId, limit: MAX_COMPARED })
      // A compressed or very long session cannot be compared turn by turn: it just continues.
      const whole = !page.hasMoreBefore && s.resolveResumeSessionId(sessionId) === sessionId
      const turns: StoredTurn[] = []
      for (const m of page.items) {
        if (m.role === 'user') turns.push({ role: 'user', content: m.content ?? '', id: m.id, at: m.timestamp })
        else if (m.role === 'assistant' && !m.toolCalls?.length && m.content) {
          // The client sees one assistant message per turn: the final text after any tool rounds.
          const reply: StoredTurn = { role: 'assistant', content: m.content, id: m.id, at: m.timestamp }
          if (turns.at(-1)?.role === 'assistant') turns[turns.length - 1] = reply
          else turns.push(reply)
        }
      }
      return { turns, whole }
    },
    branches: (sessionId) => store().branchesOf(sessionId, 'api_server'),
    async seed(sessionId, turns, opts) {
      const s = store()
      await s.createSession(sessionId, 'api_server', {
        model: opts.model ?? null,
        profileName: profile,
        parentSessionId: opts.parent ?? null,
        modelConfig: opts.parent ? { _branched_from: opts.parent } : null
      })
      // A message with images is stored in upstream's multimodal shape, as the turn itself stores one.
      if (turns.length)
        await s.appendMessages(
          sessionId,
          turns.map((t) => ({ role: t.role, content: t.parts ?? t.content }))
        )
    }
  }
}
