/** Host-level memory tests: a temp Hermes root, a scripted model, plugin folders and event capture. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  startScriptedProvider,
  type RecordedRequest,
  type ScriptedProvider,
  type ScriptHandler
} from '../../agent/scripted'
import { createHost, type Host } from '..'
import { createLogger } from '../log/log'
import { isSummaryCall } from '../../agent/test-fixtures/kit'

export interface Rig {
  root: string
  provider: ScriptedProvider
  host: Host | null
  events: Array<{ event: string; payload: any }>
  home(profile: string): string
  writeConfig(profile: string, extraYaml: string, modelYaml?: string): void
  start(): Promise<Host>
  restart(): Promise<Host>
  close(): Promise<void>
  /** Chat requests (excluding summaries) in order. */
  chats(): RecordedRequest[]
}

export async function makeRig(handler: ScriptHandler, profiles: string[] = []): Promise<Rig> {
  const root = mkdtempSync(join(tmpdir(), 'cad-mem-host-'))
  const provider = await startScriptedProvider({ handler })
  for (const p of profiles) mkdirSync(join(root, 'profiles', p), { recursive: true })
  const rig: Rig = {
    root,
    provider,
    host: null,
    events: [],
    home: (p) => (p === 'default' ? root : join(root, 'profiles', p)),
    writeConfig(p, extra, model = '') {
      writeFileSync(
        join(rig.home(p), 'config.yaml'),
        `model:\n  default: scripted-model\n  provider: custom\n  base_url: ${provider.baseUrl}\n${model}${extra}`
      )
    },
    async start() {
      process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
      const host = await createHost({ home: root, headless: true, log: createLogger() })
      host.bus.subscribe((e) => void rig.events.push({ event: e.event, payload: e.payload }))
      rig.host = host
      return host
    },
    async restart() {
      await rig.host?.close()
      return rig.start()
    },
    async close() {
      await rig.host?.close()
      await provider.close()
      rmSync(root, { recursive: true, force: true })
    },
    chats: () => provider.requests.filter((q) => q.path.endsWith('/chat/completions') && !isSummaryCall(q))
  }
  for (const p of ['default', ...profiles]) rig.writeConfig(p, '')
  return rig
}

export const messagesOf = (q: RecordedRequest) => (q.body?.messages ?? []) as Array<{ role: string; content: unknown }>
export const lastOf = (q: RecordedRequest) => messagesOf(q).at(-1)
export const toolNames = (q: RecordedRequest) =>
  ((q.body?.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name).sort()
/** The user message that opened the turn a request belongs to. */
export const turnText = (q: RecordedRequest) => {
  const users = messagesOf(q).filter((m) => m.role === 'user')
  // Recall rides on the turn's user message in the request only: strip it to get what the user typed.
  return String(users.at(-1)?.content ?? '').split('\n\n<memory-context>')[0]!
}

/** Write a JS memory plugin folder. */
export function writePlugin(
  base: string,
  name: string,
  source: string,
  manifest = `name: ${name}\nversion: 1.0.0\ndescription: test plugin ${name}\nhooks: [prefetch, sync_turn]\n`
): string {
  const dir = join(base, 'caduceus-plugins', 'memory', name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'plugin.yaml'), manifest)
  writeFileSync(join(dir, 'index.mjs'), source)
  return dir
}

/**
 * A plugin that records every hook as [hook, bound home, ambient home] on globalThis (the test process is
 * the host process), and exposes one tool. `shared: true` hands every profile the same instance.
 */
export function recorderSource(opts: {
  key: string
  tool: string
  shared?: boolean
  checkpoint?: 'ok' | 'fail'
}): string {
  return `
const events = (globalThis[${JSON.stringify(opts.key)}] ??= [])
function make(ctx) {
  let bound = null
  const rec = (hook) => events.push([hook, bound, ctx.currentHome()])
  return {
    name: ${JSON.stringify(opts.key)},
    ${opts.checkpoint ? 'preCompressCheckpointApiVersion: 2,' : ''}
    isAvailable: () => true,
    initialize(sessionId, o) { bound = o.hermesHome; rec('initialize') },
    getToolSchemas: () => [{ name: ${JSON.stringify(opts.tool)}, description: 'note', parameters: { type: 'object', properties: { text: { type: 'string' } } } }],
    handleToolCall(name, args, kw) { rec('tool'); return JSON.stringify({ ok: true, home: kw && kw.hermesHome === bound }) },
    systemPromptBlock() { rec('system_prompt'); return '' },
    prefetch(q) { rec('prefetch'); return 'RECORDER RECALL for ' + q.slice(0, 20) },
    queuePrefetch() { rec('queue_prefetch') },
    syncTurn() { rec('sync_turn') },
    onTurnStart() { rec('on_turn_start') },
    onSessionEnd() { rec('on_session_end') },
    onSessionSwitch() { rec('on_session_switch') },
    onPreCompress() { rec('on_pre_compress'); ${opts.checkpoint === 'fail' ? "throw new Error('checkpoint store offline')" : "return ''"} },
    onMemoryWrite() { rec('on_memory_write') },
    onDelegation() { rec('on_delegation') },
    shutdown() { rec('shutdown') }
  }
}
${opts.shared ? 'let one = null\nexport function createProvider(ctx) { return (one ??= make(ctx)) }' : 'export function createProvider(ctx) { return make(ctx) }'}
`
}

export const recorded = (key: string): Array<[string, string | null, string]> =>
  ((globalThis as Record<string, unknown>)[key] as never) ?? []
