/**
 * Context compression by session rotation (hermes-spec §1.6/§1.7): summarize the older messages with the
 * model, write the summary plus the protected tail into a new child session (parent_session_id = current,
 * same source and routing), end the parent with `end_reason='compression'`, and continue in the child.
 * The child and the parent's end are one transaction (upstream's publish_compression_child), so a failure leaves the
 * parent live and no child; the parent's rows added while the summary was written are carried into the child too.
 * On a v31 home the carried rows are copies of the parent's: each keeps its message's identity (uid, call uids, the
 * uid of the call a result answers), as upstream's continuation does; only the summary is a new message.
 */
import { randomUUID } from 'node:crypto'
import { newSessionId } from './ids'
import { estimateTokens, sanitizeHistory, toNewMessage } from './messages'
import { summaryPlacement } from './summary-placement'
import { callModel } from './model-call'
import { withoutThinkBlocks } from './think-scrub'
import type { AgentMessage, ProviderClient, RuntimeConfig } from './providers/types'
import type { TurnContext, Touch } from './turn-context'
import type { Logger } from '@shared/contract/log'
import type { AgentMemory, AgentStore, CompressionConfig } from './types'
import type { NewMessage } from '../store'
import { errorMessage } from '@shared/contract/errors'
import { readRetrying } from '../store'
import { mergeSummaryInto, mergedSummaryHead, rowSummary, summaryMessageText } from '@shared/contract/merged-summary'

export interface CompressionHost {
  sessionId: string
  sessionMessages: AgentMessage[]
  lastFlushedDbIdx: number
  readonly store: AgentStore
  readonly memory: AgentMemory | null
  readonly runtime: RuntimeConfig
  readonly log: Logger | null
  readonly profile: string
  readonly defaultSource: string
  getClient(): ProviderClient
  /** The system prompt the agent sends (stored on the continuation as upstream stores its rebuilt prompt). */
  systemPromptText(): string
  /** The continuation's `model_config`: the agent's settings, as upstream gives its continuation its own. */
  sessionModelConfig(): Record<string, unknown>
  touch: Touch
}

const DEFAULTS = { threshold: 0.5, contextLength: 128_000, targetRatio: 0.2, protectLastN: 6 }
/** The lease lasts 300 s (upstream's default); renewed well before it runs out. */
const LEASE_RENEW_MS = 60_000

export function resolveCompression(cfg: CompressionConfig | null | undefined) {
  const num = (v: unknown, d: number, lo: number, hi: number) =>
    typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : d
  return {
    enabled: cfg?.enabled === true,
    threshold: num(cfg?.threshold, DEFAULTS.threshold, 0.01, 1),
    contextLength: Math.floor(num(cfg?.contextLength, DEFAULTS.contextLength, 256, 10_000_000)),
    targetRatio: num(cfg?.targetRatio, DEFAULTS.targetRatio, 0.01, 1),
    protectLastN: Math.floor(num(cfg?.protectLastN, DEFAULTS.protectLastN, 1, 1000)),
    requireCheckpoint: cfg?.requireCheckpoint === true
  }
}

/**
 * Where the protected tail starts: never on a tool result, whose call must stay with it, and never after `keep`, the
 * running turn's own user message (the turn finds it by identity to add its recalled memory, and a turn must not
 * lose the request it is answering to a summary however many tool rounds follow it).
 */
function tailStart(messages: AgentMessage[], protectLastN: number, keep: AgentMessage | null): number {
  let start = Math.max(0, messages.length - protectLastN)
  const own = keep ? messages.indexOf(keep) : -1
  if (own >= 0 && own < start) start = own
  while (start > 0 && messages[start]!.role === 'tool') start--
  return start
}

/**
 * `under`: within the threshold. `compress`: over it, with older messages to summarize. `stuck`: over it, but what
 * is over is the protected tail itself (the turn's own message and what followed it): a rotation cannot help.
 */
export function compressionNeed(
  cfg: ReturnType<typeof resolveCompression>,
  messages: AgentMessage[],
  extraChars: number,
  keep: AgentMessage | null
): 'under' | 'compress' | 'stuck' {
  if (!cfg.enabled || estimateTokens(messages, extraChars) <= cfg.threshold * cfg.contextLength) return 'under'
  return tailStart(messages, cfg.protectLastN, keep) < 2 ? 'stuck' : 'compress' // < 2: nothing worth summarizing
}

/**
 * Compresses under upstream's compression lease on the session (its `compression_locks`), as upstream's compressor
 * does: while another program (an upstream gateway, a second Caduceus) compresses the same session, this one does not,
 * so the two cannot both end it and fork the conversation. The lease is renewed while the summary is written.
 */
export async function compressContext(
  host: CompressionHost,
  cfg: ReturnType<typeof resolveCompression>,
  ctx: TurnContext
): Promise<string> {
  const parentId = host.sessionId
  const holder = `pid=${process.pid}:caduceus:nonce=${randomUUID().replace(/-/g, '').slice(0, 8)}`
  if (!(await host.store.compressionLock('acquire', parentId, holder)))
    throw new Error('another program is compressing this session')
  const renew = setInterval(() => {
    Promise.resolve(host.store.compressionLock('refresh', parentId, holder)).catch(() => false)
  }, LEASE_RENEW_MS)
  renew.unref()
  try {
    return await rotate(host, cfg, ctx)
  } finally {
    clearInterval(renew)
    try {
      await host.store.compressionLock('release', parentId, holder)
    } catch (err) {
      host.log?.warn('agent', `compression lease release failed: ${errorMessage(err)}`)
    }
  }
}

async function rotate(
  host: CompressionHost,
  cfg: ReturnType<typeof resolveCompression>,
  ctx: TurnContext
): Promise<string> {
  const parentId = host.sessionId
  const split = tailStart(host.sessionMessages, cfg.protectLastN, ctx.userMessage)
  // What the handoff stands for: the parent's rows up to here. Rows another writer adds while the summary is written
  // are carried into the child after it (upstream's watermark).
  const watermark = await readRetrying(() => host.store.messageWatermark(parentId))
  const head = host.sessionMessages.slice(0, split)
  const tail = host.sessionMessages.slice(split)
  host.touch('compressing context', 'compression')

  let memoryNotes = ''
  try {
    memoryNotes =
      (await host.memory?.onPreCompress?.(
        head.map((m) => ({ ...m })),
        cfg.requireCheckpoint ? { requireCheckpoint: true } : undefined
      )) ?? ''
  } catch (err) {
    // Fail closed: with a required checkpoint nothing is summarized or rotated until memory has saved it.
    if (cfg.requireCheckpoint)
      throw new Error(`memory checkpoint required before compression failed: ${errorMessage(err)}`)
    host.log?.warn('agent', `memory pre-compress hook failed: ${errorMessage(err)}`)
  }
  const maxWords = Math.max(150, Math.round(cfg.targetRatio * cfg.threshold * cfg.contextLength * 0.75))
  const response = await callModel(
    {
      client: host.getClient(),
      runtime: host.runtime,
      store: host.store,
      sessionId: parentId,
      touch: host.touch,
      log: host.log,
      task: 'compression',
      stream: false
    },
    {
      model: host.runtime.model,
      maxTokens: Math.min(8192, Math.max(256, Math.round(maxWords * 1.5))),
      messages: [
        { role: 'system', content: summaryInstructions(maxWords) },
        {
          role: 'user',
          content: transcript(head) + (memoryNotes.trim() ? `\n\n[Notes from memory]\n${memoryNotes.trim()}` : '')
        }
      ]
    },
    ctx
  )
  const summaryText = response.text.trim()
  if (!summaryText) throw new Error('the summarization call returned no text')

  const parent = await readRetrying(() => host.store.getSession(parentId))
  const childId = newSessionId()
  const meta = { compressedFrom: parentId, summarizedMessages: head.length }
  // Nothing but the system prompt precedes the summary: upstream's role rule with the system prompt as the head.
  const place = summaryPlacement(
    'system',
    tail[0]?.role,
    tail.some((m) => m.role === 'user')
  )
  let messages: AgentMessage[]
  let rows: NewMessage[]
  let merged: { from: AgentMessage; to: AgentMessage } | null = null
  if (place === 'merge') {
    // Either role would sit next to a message of its own role: the summary joins the first kept message, ahead of
    // its words and ended by a line saying it is background, so the model does not take the summary's old tasks for
    // new input. A copy: the parent's message stays as it was should the write below fail.
    const first = tail[0]!
    const to: AgentMessage = { ...first, content: mergeSummaryInto(first.content ?? '', summaryText) }
    // The same text ahead of the message's own parts (its images stay where they were). Its row joins the parts'
    // text with a newline (storedPartsText), which stands for the head's last one, so the row splits as text does.
    if (first.parts?.length)
      to.parts = [{ type: 'text', text: mergedSummaryHead(summaryText).slice(0, -1) }, ...first.parts]
    merged = { from: first, to }
    messages = [to, ...tail.slice(1)]
    // The merged message is still the kept one (its text comes first): it keeps that message's identity.
    rows = [
      toNewMessage(to, { displayMetadata: { ...meta, summaryMerged: true } }),
      ...tail.slice(1).map((m) => toNewMessage(m))
    ]
  } else {
    const summary: AgentMessage = { role: place, content: summaryMessageText(summaryText) }
    messages = [summary, ...tail]
    rows = [
      toNewMessage(summary, { displayKind: 'compression_summary', displayMetadata: meta }),
      ...tail.map((m) => toNewMessage(m))
    ]
  }
  // One transaction, as upstream publishes it: the child row (routing passed here, the rest taken from the parent in
  // the store), its title "X #2", the prompt the agent goes on with (its update_system_prompt on the new session),
  // the handoff rows, the parent's rows another writer added meanwhile, and the parent's end. A failure leaves the
  // parent live and no child.
  const prompt = host.systemPromptText()
  const published = await host.store.publishCompressionChild({
    parentId,
    childId,
    // The surface compressing is where the conversation goes on: upstream's continuation takes the running agent's
    // platform (conversation_compression.py), not the parent's source, so a chain resumed elsewhere says so.
    source: host.defaultSource,
    session: {
      model: host.runtime.model,
      modelConfig: host.sessionModelConfig(),
      // a continuation carries its parent's routing, as upstream's does; the agent's own rows carry none
      sessionKey: parent?.sessionKey ?? null,
      userId: parent?.userId ?? null,
      chatId: parent?.chatId ?? null,
      chatType: parent?.chatType ?? null,
      threadId: parent?.threadId ?? null,
      cwd: parent?.cwd ?? null,
      profileName: parent?.profileName ?? host.profile,
      systemPrompt: prompt || null
    },
    messages: rows,
    ...(merged ? { mergedFrom: toNewMessage(merged.from) } : {}),
    watermark
  })
  // Each message held in memory carries the identity its row was written with (a later copy keeps it).
  messages.forEach((m, i) => {
    const uids = rows[i]!.identity
    if (uids?.messageUid) m.identity = { ...uids, messageUid: uids.messageUid }
  })
  if (published.cloned > 0) {
    // What another writer added to the parent meanwhile is part of the conversation the model goes on with.
    const late = await readRetrying(() =>
      host.store.getMessagesAsConversation(childId, { afterId: published.lastHandoffId })
    )
    messages = [...messages, ...sanitizeHistory(late)]
  }

  // The turn finds its user message by identity (memory context rides on it): the copy is that message now.
  if (merged && ctx.userMessage === merged.from) ctx.userMessage = merged.to
  host.sessionId = childId
  host.sessionMessages = messages
  host.lastFlushedDbIdx = host.sessionMessages.length
  try {
    await host.memory?.onSessionSwitch?.(childId, { parentSessionId: parentId, reset: false, reason: 'compression' })
  } catch (err) {
    host.log?.warn('agent', `memory session-switch hook failed: ${errorMessage(err)}`)
  }
  ctx.emit({ kind: 'notice', text: `Context compressed: continuing in session ${childId}`, savedSessionId: childId })
  host.log?.info('agent', `compressed ${head.length} messages of session ${parentId} into child ${childId}`)
  return childId
}

function summaryInstructions(maxWords: number): string {
  return [
    'You compress conversations so an assistant can continue them with less context.',
    "Summarize the transcript you are given. Keep: the user's goals and preferences, decisions made, facts and",
    'names learned, results of tool calls that still matter, and open tasks or next steps.',
    'A part marked [earlier summary] is what an earlier compression kept of the conversation before it, not anyone',
    'speaking: carry what still matters from it into your summary.',
    `Write plain prose or short bullets, no preamble, at most about ${maxWords} words.`
  ].join(' ')
}

function transcript(messages: AgentMessage[]): string {
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more chars]` : s)
  return messages
    .map((m) => {
      // An earlier compression's summary (Caduceus's or upstream's), alone or merged into a kept message: folded in
      // as a summary, never as something the user or the assistant said.
      const earlier = rowSummary(m.role, m.content, m.compressedSummary)
      const told = earlier ? `[earlier summary]: ${clip(earlier.summary, 16000)}` : ''
      if (earlier?.kept === null) return told
      if (m.role === 'tool') return `[tool ${m.name ?? ''} result]: ${clip(m.content ?? '', 2000)}`
      const calls = (m.tool_calls ?? [])
        .map((c) => ` (called ${c.function.name} with ${clip(c.function.arguments, 500)})`)
        .join('')
      // an assistant's inline reasoning is scratch work, not something said: upstream keeps it from the summarizer
      const text = earlier ? earlier.kept : (m.content ?? '')
      const said = `[${m.role}]: ${clip(m.role === 'assistant' ? withoutThinkBlocks(text) : text, 8000)}${calls}`
      return earlier ? `${told}\n\n${said}` : said
    })
    .join('\n\n')
}
