/** Small pieces the MemoryManager is built from: core tool names, test seams, timing and summaries. */
import type { MemoryProvider } from './provider'
import { parseJsonOr } from '@shared/contract/errors'

/** Tool names owned by the agent itself; an external memory provider may not shadow them. */
export const DEFAULT_CORE_TOOL_NAMES: readonly string[] = [
  'terminal',
  'process',
  'read_file',
  'write_file',
  'patch',
  'search_files',
  'web_search',
  'web_extract',
  'browser_navigate',
  'browser_click',
  'browser_type',
  'browser_snapshot',
  'delegate_task',
  'todo',
  'memory',
  'session_search',
  'clarify',
  'execute_code',
  'skills_list',
  'skill_view',
  'skill_manage',
  'send_message',
  'cronjob',
  'vision_analyze',
  'image_generate',
  'text_to_speech'
]

export const PREFETCH_TIMEOUT_MS = 8_000
export const DRAIN_TIMEOUT_MS = 5_000
/**
 * The bound on every other call into an external provider (load, initialize, system prompt, turn-start and
 * pre-compress hooks, sync, shutdown): a hosted backend that never answers must not hold an agent build or a
 * turn. CADUCEUS_MEMORY_HOOK_TIMEOUT_MS overrides it (tests, slow self-hosted backends).
 */
export function hookTimeoutMs(): number {
  const v = Number(process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS)
  return Number.isFinite(v) && v > 0 ? v : 15_000
}

/**
 * A provider written against the two-argument shape `handleToolCall(name, args)` gets exactly two
 * arguments (upstream only forwards **kwargs a handler can take). Everything else gets the kwargs.
 */
export function acceptsToolKwargs(provider: MemoryProvider): boolean {
  // Read once when the provider is added, never per call (seed 000 test_tool_calls_reuse_what_initialize_bound).
  return provider.handleToolCall.bind(provider).length !== 2
}

export const now = (): number => performance.now()
export const elapsed = (start: number): number => Math.round((performance.now() - start) * 100) / 100

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name
  return String(err)
}

export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** Race a value against a timer; the timer never keeps the process alive. */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number
): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), ms)
    timer.unref?.()
  })
  try {
    return await Promise.race([work.then((value) => ({ timedOut: false as const, value })), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** One committed change of the built-in `memory` tool, as it is mirrored to external providers. */
export interface CommittedMemoryWrite {
  action: 'add' | 'replace' | 'remove'
  target: 'memory' | 'user'
  content: string
  /** The entry the change named (replace, remove): upstream hands it to providers as `metadata.old_text`. */
  oldText?: string
}

/**
 * The changes a committed built-in `memory` call made, one per item of an `operations` batch (else the single
 * change); none when the call failed or was only staged. Like upstream, content is the item's own `content`
 * ('' for a remove) and the item's `old_text` travels beside it.
 */
export function committedMemoryWrites(args: Record<string, unknown>, result: string): CommittedMemoryWrite[] {
  const r = parseJsonOr(result, null) as { success?: unknown; staged?: unknown } | null
  if (!r || typeof r !== 'object' || r.success !== true || r.staged === true) return []
  const target = args.target ?? 'memory'
  if (target !== 'memory' && target !== 'user') return []
  const ops =
    Array.isArray(args.operations) && args.operations.length > 0
      ? (args.operations as unknown[])
      : [{ action: args.action, content: args.content, old_text: args.old_text }]
  const out: CommittedMemoryWrite[] = []
  for (const op of ops) {
    if (!op || typeof op !== 'object' || Array.isArray(op)) continue
    const { action, content, old_text: oldText } = op as Record<string, unknown>
    if (action !== 'add' && action !== 'replace' && action !== 'remove') continue
    out.push({
      action,
      target,
      content: typeof content === 'string' ? content : '',
      ...(typeof oldText === 'string' && oldText ? { oldText } : {})
    })
  }
  return out
}
