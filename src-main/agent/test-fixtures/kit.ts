/** Test helpers: a real SessionStore on a temp state.db, a scripted provider, and an Agent wired to both. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore } from '../../store'
import { Agent } from '../agent'
import {
  startScriptedProvider,
  type RecordedRequest,
  type ScriptedProvider,
  type ScriptHandler,
  type ScriptReply
} from '../scripted'
import { ToolRegistry, type ToolDefinition } from '../tools/registry'
import type { AgentDelta, AgentOptions } from '../types'
import { rawDb } from '../../store/test-fixtures/raw-db'

export interface Kit {
  store: SessionStore
  server: ScriptedProvider
  tools: ToolRegistry
  deltas: AgentDelta[]
  makeAgent(over?: Partial<AgentOptions>): Agent
  messages(sessionId: string): Array<{
    role: string
    content: string | null
    tool_calls: string | null
    tool_call_id: string | null
    finish_reason: string | null
    display_kind: string | null
    /** Upstream's compression-summary flag (a Caduceus-created home has the column). */
    _compressed_summary: number
  }>
  cleanup(): Promise<void>
}

/** A request the compressor made (its instructions open the summary call: compression.ts summaryInstructions), not a turn. */
export const isSummaryCall = (req: RecordedRequest): boolean =>
  String(req.body?.messages?.[0]?.content ?? '').startsWith('You compress conversations')

/**
 * The runtime a test agent uses: a custom OpenAI-compatible endpoint at `baseUrl`, no retries, and a stream cut before
 * any text asked for again after waits of milliseconds instead of upstream's seconds; `over` adds to it.
 */
export function testRuntime(baseUrl: string, over: Partial<AgentOptions['runtime']> = {}): AgentOptions['runtime'] {
  return {
    model: 'test-model',
    provider: 'custom',
    baseUrl,
    apiKey: 'sk-test-abcdef123456',
    apiMode: 'chat_completions',
    maxRetries: 0,
    limits: { streamRetryWaitMs: 10 },
    ...over
  }
}

export async function makeKit(script: ScriptReply[] = [], opts: { handler?: ScriptHandler } = {}): Promise<Kit> {
  const dir = mkdtempSync(join(tmpdir(), 'cad-agent-'))
  const store = new SessionStore(join(dir, 'state.db'))
  const server = await startScriptedProvider({ script, handler: opts.handler })
  const tools = new ToolRegistry()
  const deltas: AgentDelta[] = []
  return {
    store,
    server,
    tools,
    deltas,
    makeAgent: (over = {}) =>
      new Agent({
        profile: 'default',
        sessionId: 'S1',
        store,
        runtime: testRuntime(server.baseUrl),
        tools,
        maxIterations: 8,
        gatewaySessionKey: 'agent:main:desk:S1',
        ...over
      }),
    messages: (sessionId) =>
      rawDb(store)
        .prepare(
          'SELECT role, content, tool_calls, tool_call_id, finish_reason, display_kind, _compressed_summary FROM messages WHERE session_id = ? ORDER BY id'
        )
        .all(sessionId) as never,
    cleanup: async () => {
      await server.close()
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** A tool that records its calls and answers with a fixed string (or runs `impl`). */
export function recordingTool(
  name: string,
  impl?: (args: Record<string, unknown>) => string | Promise<string>,
  extra: Partial<ToolDefinition> = {}
) {
  const calls: Array<Record<string, unknown>> = []
  const def: ToolDefinition = {
    name,
    description: `test tool ${name}`,
    parameters: { type: 'object', properties: {} },
    execute: async (args) => {
      calls.push(args)
      return impl ? impl(args) : JSON.stringify({ ok: true, tool: name })
    },
    ...extra
  }
  return { def, calls }
}

/** Resolves when `check` is true, polling on the event loop (no timing assertions). */
export async function until(check: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`timed out waiting for ${what}`)
}
