/** The compression summary's place in the continuation (hermes-spec §1.7; upstream's context_compressor). */

/**
 * Where the summary goes, by upstream's rule (context_compressor): a role that never sits next to a message of the
 * same role — after an assistant/tool head (or the system prompt, or when no user message survives) it is a user
 * message, else an assistant one; flipped when it would touch the first kept message's role, and merged into that
 * message when both roles would.
 */
export function summaryPlacement(
  lastHeadRole: string | undefined,
  firstTailRole: string | undefined,
  userSurvives: boolean
): 'user' | 'assistant' | 'merge' {
  const head = lastHeadRole ?? 'user'
  const tail = firstTailRole ?? 'user'
  const forceUser = head === 'system' || !userSurvives
  const role = head === 'assistant' || head === 'tool' || forceUser ? 'user' : 'assistant'
  if (role !== tail) return role
  const flipped = role === 'user' ? 'assistant' : 'user'
  return flipped !== head && !forceUser ? flipped : 'merge'
}
