import type { Message, Money, SessionSummary, Subagent, Tokens } from '@shared/contract'

export const zeroTokens: Tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }
export const usd = (v: number | null, status: Money['status'] = 'estimated', complete = true): Money => ({
  usd: v,
  status,
  complete
})

export function summary(id: string, patch: Partial<SessionSummary> = {}): SessionSummary {
  return {
    profile: 'default',
    id,
    rootId: id,
    chainLength: 1,
    kind: 'root',
    parentSessionId: null,
    source: 'cli',
    title: `Session ${id}`,
    preview: null,
    model: 'gpt-test',
    messageCount: 2,
    toolCallCount: 0,
    startedAt: 1_700_000_000,
    endedAt: null,
    endReason: null,
    lastActiveAt: 1_700_000_100,
    tokens: zeroTokens,
    cost: usd(0.01),
    archived: false,
    pinned: false,
    childCount: 0,
    ...patch
  }
}

export function message(id: number, sessionId = 's1', patch: Partial<Message> = {}): Message {
  return {
    id,
    sessionId,
    role: id % 2 ? 'user' : 'assistant',
    content: `message ${id}`,
    toolCalls: null,
    toolCallId: null,
    toolName: null,
    reasoning: null,
    timestamp: 1_700_000_000 + id,
    tokenCount: null,
    finishReason: null,
    displayKind: null,
    ...patch
  }
}

export function subagent(childId: string, patch: Partial<Subagent> = {}): Subagent {
  return {
    profile: 'default',
    delegationId: `d-${childId}`,
    childId,
    childSessionId: `cs-${childId}`,
    parentSessionId: 'p1',
    state: 'retained',
    rawState: 'completed',
    goal: `goal ${childId}`,
    model: 'gpt-test',
    dispatchedAt: 1_700_000_000,
    completedAt: 1_700_000_050,
    retainedAt: 1_700_000_050,
    expiresAt: 1_700_086_450,
    tombstonedAt: null,
    transcriptMessages: 4,
    transcriptChars: 1200,
    cost: usd(0.02),
    tokens: zeroTokens,
    ...patch
  }
}
