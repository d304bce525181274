// Compresses sessions of an existing home with Caduceus's own agent (its compression rotation, on a scripted
// provider), for scripts/golden/compression_interop.py to read back with upstream's compressor.
//   npx tsx compression-caduceus.ts HOME CASES_JSON   prints {key: childSessionId}
// CASES_JSON: [{key, sessionId, text, protectLastN, summary}]: the turn `text` is run on `sessionId` with a context
// window small enough that it compresses, keeping `protectLastN` messages; the summarizer answers `summary`.
import { join } from 'node:path'
import { SessionStore } from '../../src-main/store'
import { Agent } from '../../src-main/agent/agent'
import { ToolRegistry } from '../../src-main/agent/tools/registry'
import { startScriptedProvider } from '../../src-main/agent/scripted'
import { isSummaryCall } from '../../src-main/agent/test-fixtures/kit'

type Case = { key: string; sessionId: string; text: string; protectLastN: number; summary: string }
const [home, casesJson] = process.argv.slice(2)
if (!home || !casesJson) throw new Error('usage: compression-caduceus.ts HOME CASES_JSON')
const cases = JSON.parse(casesJson) as Case[]

const store = new SessionStore(join(home, 'state.db'))
const ids: Record<string, string> = {}
try {
  for (const c of cases) {
    const provider = await startScriptedProvider({
      handler: (req) => (isSummaryCall(req) ? { text: c.summary } : { text: 'Carried on after the compression.' })
    })
    try {
      const agent = new Agent({
        profile: 'default',
        sessionId: c.sessionId,
        store,
        runtime: {
          model: 'test-model',
          provider: 'custom',
          baseUrl: provider.baseUrl,
          apiKey: 'sk-golden-0000',
          apiMode: 'chat_completions',
          maxRetries: 0
        },
        tools: new ToolRegistry(),
        maxIterations: 4,
        gatewaySessionKey: '',
        compression: { enabled: true, threshold: 0.5, contextLength: 1000, protectLastN: c.protectLastN }
      })
      const r = await agent.runTurn(c.text)
      if (r.status !== 'completed' || agent.sessionId === c.sessionId)
        throw new Error(`${c.key}: the turn did not compress (${r.status})`)
      ids[c.key] = agent.sessionId
      await agent.close()
    } finally {
      await provider.close()
    }
  }
} finally {
  store.close()
}
process.stdout.write(JSON.stringify(ids) + '\n')
