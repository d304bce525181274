/**
 * Provider bench (issue 24): a hostile provider in its own process sends 60 MB as one SSE line, as one JSON body,
 * and as tool-call arguments (plus 12 MB of arguments, under the reply cap, to show the refusal). The agent side
 * runs here, with the default `provider_limits`: the event loop's worst delay, RSS growth over the start, the
 * time until the clear error, and (tool calls) the bytes that reached state.db.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { Agent } from '../src-main/agent/agent'
import { createProviderClient } from '../src-main/agent/providers'
import { ToolRegistry } from '../src-main/agent/tools/registry'
import { SessionStore } from '../src-main/store'

const MB = 1 << 20
const round = (n: number) => Math.round(n * 10) / 10

// The hostile provider runs in its own process: it must not share this event loop.
const HOSTILE = join(import.meta.dirname, '../src-main/agent/providers/test-fixtures/hostile-provider.ts')

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOSTILE], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((ok) =>
    createInterface({ input: child.stdout! }).once('line', (l) => ok(Number(l)))
  )
  return { child, port }
}

interface Measure {
  worstDelayMs: number
  rssGrowthMb: number
  msToError: number
  error: string | null
}

/** Runs `fn` while sampling the loop's worst delay and peak RSS. */
async function measure(fn: () => Promise<string | null>): Promise<Measure> {
  ;(globalThis as { gc?: () => void }).gc?.()
  const base = process.memoryUsage.rss()
  let peak = base
  const h = monitorEventLoopDelay({ resolution: 5 })
  h.enable()
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10)
  const t0 = performance.now()
  const error = await fn()
  const ms = performance.now() - t0
  clearInterval(sampler)
  h.disable()
  return {
    worstDelayMs: round(h.max / 1e6),
    rssGrowthMb: round((Math.max(peak, process.memoryUsage.rss()) - base) / MB),
    msToError: Math.round(ms),
    error
  }
}

async function providerCase(port: number, mode: string, sizeMb: number): Promise<Measure> {
  const client = createProviderClient({
    model: 'm',
    provider: 'custom',
    baseUrl: `http://127.0.0.1:${port}/${mode}/${sizeMb}/v1`,
    apiKey: 'k',
    apiMode: 'chat_completions',
    maxRetries: 0
  })
  return measure(async () => {
    try {
      for await (const ev of client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })) void ev
      return null
    } catch (err) {
      return (err as Error).message
    }
  })
}

async function toolCase(port: number, sizeMb: number): Promise<Measure & { storedBytes: number; ran: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'cad-pbench-'))
  const store = new SessionStore(join(dir, 'state.db'))
  const tools = new ToolRegistry()
  let ran = false
  tools.register({
    name: 'write',
    description: 'write text',
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
    execute: async () => ((ran = true), 'ok')
  } as never)
  let turn = 0
  const agent = new Agent({
    profile: 'default',
    sessionId: 'B1',
    store,
    runtime: {
      model: 'm',
      provider: 'custom',
      baseUrl: `http://127.0.0.1:${port}/tool/${sizeMb}/v1`,
      apiKey: 'k',
      apiMode: 'chat_completions',
      maxRetries: 0
    },
    tools,
    maxIterations: 3,
    gatewaySessionKey: 'agent:main:bench:B1'
  })
  // The follow-up call (after the refused tool) answers at once: the header tells the provider which turn it is.
  const origFetch = globalThis.fetch
  globalThis.fetch = ((input: never, init?: RequestInit) =>
    origFetch(input, { ...init, headers: { ...(init?.headers as object), 'x-turn': String(++turn) } })) as never
  try {
    const m = await measure(async () => {
      const r = await agent.runTurn('write it')
      return r.status === 'completed' ? null : (r.error ?? r.status)
    })
    const storedBytes = store
      .getMessagesAsConversation('B1')
      .reduce((n, msg) => n + JSON.stringify(msg.tool_calls ?? '').length + (msg.content?.length ?? 0), 0)
    return { ...m, storedBytes, ran }
  } finally {
    globalThis.fetch = origFetch
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function runProviderBench() {
  const { child, port } = await startServer()
  try {
    // Warm-up: the SDK's first import and the JIT are not the reply's cost.
    await providerCase(port, 'done', 0)
    await toolCase(port, 1)
    return {
      sseLine60Mb: await providerCase(port, 'sse-line', 60),
      jsonBody60Mb: await providerCase(port, 'json', 60),
      toolArgs60Mb: await toolCase(port, 60),
      toolArgs12Mb: await toolCase(port, 12)
    }
  } finally {
    child.kill()
  }
}
