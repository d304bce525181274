import type { Message, Money, SessionSummary, Subagent, Tokens } from '@shared/contract'

/** Canned data for `?fake=1` (UI development without a host). Deterministic: no Math.random. */
export const tok = (i: number, o: number): Tokens => ({
  input: i,
  output: o,
  cacheRead: Math.floor(i / 3),
  cacheWrite: Math.floor(i / 10),
  reasoning: Math.floor(o / 4)
})
export const money = (usd: number | null, status: Money['status'] = 'estimated'): Money => ({
  usd,
  status,
  complete: status !== 'partial' && usd != null
})

const NOW = Math.floor(Date.now() / 1000)
const SOURCES = ['cli', 'desk', 'telegram', 'cron', 'api']
const TITLES = [
  'Refactor the billing module',
  'Why is CI flaky on arm64?',
  'Draft release notes for 2.4',
  null,
  'Summarise the incident report',
  'Port the parser to TypeScript',
  null,
  'Plan the Q3 roadmap',
  'Investigate memory leak in worker',
  'Write migration for sessions table'
]

export function makeSessions(): SessionSummary[] {
  return Array.from({ length: 340 }, (_, i) => {
    const profile = i % 3 === 0 ? 'work' : 'default'
    const cost =
      i % 11 === 0
        ? money(null, 'unpriced')
        : i % 7 === 0
          ? money(0.4 + i / 100, 'partial')
          : money(((i * 37) % 500) / 100)
    return {
      profile,
      id: `2026120${i % 9}_${(100000 + i * 7919).toString(36)}`,
      rootId: `r${i}`,
      chainLength: i % 9 === 0 ? 3 : 1,
      kind: i % 13 === 0 ? 'branch' : 'root',
      parentSessionId: null,
      source: SOURCES[i % SOURCES.length]!,
      title: TITLES[i % TITLES.length] ?? null,
      preview: 'hey, can you look at the failing test in src/parser and tell me what changed since yesterday?',
      model: i % 2 ? 'claude-sonnet-4' : 'gpt-5-mini',
      messageCount: 4 + ((i * 13) % 180),
      toolCallCount: (i * 5) % 40,
      startedAt: NOW - i * 3600 - 500,
      endedAt: null,
      endReason: null,
      lastActiveAt: NOW - i * 3600,
      tokens: tok(12000 + i * 100, 900 + i),
      cost,
      archived: i % 29 === 0,
      pinned: i === 2,
      childCount: i % 5 === 0 ? 2 : 0
    }
  })
}

export function makeMessages(sessionId: string, n: number): Message[] {
  const out: Message[] = []
  for (let i = 1; i <= n; i++) {
    const k = i % 4
    const role = k === 1 ? 'user' : k === 3 ? 'tool' : 'assistant'
    out.push({
      id: i,
      sessionId,
      role,
      timestamp: NOW - (n - i) * 60,
      tokenCount: null,
      finishReason: role === 'assistant' ? 'stop' : null,
      displayKind: i === 6 ? 'delegation_complete' : null,
      content:
        role === 'user'
          ? `Question ${i}: can you check the parser tests and explain the failure?`
          : role === 'tool'
            ? `PASS src/a.test.ts\nFAIL src/parser.test.ts (line ${i})`
            : i === 6
              ? 'Subagent sa-1 finished: "collected flaky test list" (3 files)'
              : `Here is what I found in step ${i}. The tokenizer drops the trailing newline, so the last line never reaches the parser.`,
      toolCalls:
        k === 2
          ? [
              {
                id: `call-${i}`,
                name: 'terminal',
                arguments: JSON.stringify({ command: `npm test -- parser --run ${i}` })
              }
            ]
          : null,
      toolCallId: role === 'tool' ? `call-${i - 1}` : null,
      toolName: role === 'tool' ? 'terminal' : null,
      reasoning: k === 2 ? 'The user wants the failure explained; run the tests first.' : null
    })
  }
  return out
}

export function makeSubagents(): Subagent[] {
  const states: Subagent['state'][] = ['running', 'retained', 'retained', 'expired', 'tombstoned', 'retained']
  return states.map((state, i) => ({
    profile: i % 2 ? 'work' : 'default',
    delegationId: `del-${i}`,
    childId: `sa-${i + 1}`,
    childSessionId: `child_${i + 1}`,
    parentSessionId: makeSessions()[i]!.id,
    state,
    rawState: state === 'running' ? 'running' : 'completed',
    goal: [
      'Collect the list of flaky tests',
      'Summarise the design doc',
      'Benchmark the new parser',
      'Find unused exports',
      'Translate README',
      'Audit dependencies'
    ][i]!,
    model: 'gpt-5-mini',
    dispatchedAt: NOW - 7200 * (i + 1),
    completedAt: state === 'running' ? null : NOW - 7000 * (i + 1),
    retainedAt: state === 'retained' ? NOW - 3600 * i : null,
    expiresAt: state === 'retained' ? NOW + 3600 * (6 - i) : null,
    tombstonedAt: state === 'tombstoned' ? NOW - 100 : null,
    transcriptMessages: 10 * (i + 1),
    transcriptChars: 40000 * (i + 1),
    cost: i === 3 ? money(null, 'unpriced') : money(0.05 * (i + 1)),
    tokens: tok(5000 * (i + 1), 300)
  }))
}
