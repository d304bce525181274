// A compression whose summary is merged into the first kept message (the kept turn is the caller's saved user message),
// on a home without v31's uids: read as a chain, the parent leaves out that message's original, since the merged row
// in the continuation is still it (its role, time and text) — the chain shows the message once, with the summary
// folded into it. Built by a real compression turn (the agent over a scripted provider) on a temp home.
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { SessionStore } from '../src-main/store'
import { Agent } from '../src-main/agent/agent'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { ToolRegistry } from '../src-main/agent/tools/registry'
import { isSummaryCall, testRuntime } from '../src-main/agent/test-fixtures/kit'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

afterAll(cleanupTempDirs)

const long = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(40)}`

it('a summary merged into the kept message: the parent leaves out its original when read as a chain', async () => {
  const store = new SessionStore(join(tempDir('cad-chain-merged-'), 'state.db'))
  const provider = await startScriptedProvider({
    handler: (req) =>
      isSummaryCall(req) ? { text: 'They looked up long topics A and B.' } : { text: 'Carrying on after compression.' }
  })
  try {
    await store.createSession('S1', 'desktop', { sessionKey: 'agent:main:desk:S1' })
    await store.appendMessages('S1', [
      { role: 'user', content: long('question 0') },
      { role: 'assistant', content: long('answer 0') },
      { role: 'user', content: long('question 1') },
      { role: 'assistant', content: long('answer 1') }
    ])
    const agent = new Agent({
      profile: 'default',
      sessionId: 'S1',
      store,
      runtime: testRuntime(provider.baseUrl),
      tools: new ToolRegistry(),
      maxIterations: 4,
      gatewaySessionKey: 'agent:main:desk:S1',
      compression: { enabled: true, threshold: 0.5, contextLength: 1000, protectLastN: 1, targetRatio: 0.2 },
      history: store.getMessagesAsConversation('S1')
    })
    const saved = await store.appendMessage('S1', { role: 'user', content: 'next question' })
    expect((await agent.runTurn('next question', { savedUserMessageId: saved })).status).toBe('completed')
    const child = agent.sessionId
    const tip = store.getMessages({ sessionId: child }).items
    expect(tip[0]).toMatchObject({ role: 'user', summaryMerged: true })
    expect(tip[0]!.content).toContain('next question')
    const older = store.getMessages({ sessionId: 'S1', carriedBy: child }).items
    expect(older.map((m) => m.content!.slice(0, 10))).toEqual(['question 0', 'answer 0 l', 'question 1', 'answer 1 l'])
    expect(store.getMessages({ sessionId: 'S1' }).items.at(-1)!.id).toBe(saved)
  } finally {
    await provider.close()
    store.close()
  }
}, 30_000)
