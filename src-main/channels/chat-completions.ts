/**
 * `POST /v1/chat/completions` (hermes-channels §1): the request's `messages` are the whole history; without
 * `X-Hermes-Session-Id` the conversation continues its stored session (conversation.ts), with it that session.
 * Every response names the session it was recorded in. `stream: true` answers `chat.completion.chunk` SSE frames
 * (plus `hermes.tool.progress` events and `: keepalive` comments) ending in [DONE].
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { createHash } from 'node:crypto'
import type { TurnHandle } from './gateway-face'
import { runApiTurn, type TurnOutcome, type TurnRequest } from './channel-turn'
import {
  httpErrorOf,
  memoryKeyEcho,
  memoryKeyHeader,
  newId,
  requestFlag,
  sessionHeader,
  usageOf,
  type ApiContext
} from './context'
import { readContent, readText } from './content'
import type { Turn } from './conversation'
import type { ContentParts } from './gateway-face'
import { HttpError, openSse, sendJson, warningsHeader } from './http'
import { taskRequest } from './task-request'

// Any role is taken (upstream's rule): only system/developer, user and assistant messages are read, others are skipped.
// Fields a client may send in another shape than OpenAI's (a null role, a `model` number, `stream_options: "yes"`):
// upstream ignores the shape and runs the request, so they are read where they have the expected type (readBody).
const Message = z.object({ role: z.unknown().optional(), content: z.unknown().optional() }).passthrough()
const Body = z
  .object({
    model: z.unknown().optional(),
    messages: z.array(Message).min(1, 'messages must not be empty'),
    stream: z.unknown().optional(),
    stream_options: z.unknown().optional()
  })
  .passthrough()

/** The body with those fields as their expected types: a role that is no text is no role (that message is skipped). */
function readBody(raw: Record<string, unknown>) {
  const body = parseBody(Body, raw)
  const usage = body.stream_options as { include_usage?: unknown } | null | undefined
  return {
    ...body,
    model: typeof body.model === 'string' ? body.model : undefined,
    messages: body.messages.map((m) => ({ ...m, role: typeof m.role === 'string' ? m.role : '' })),
    includeUsage: typeof usage === 'object' && usage !== null && usage.include_usage === true
  }
}

export interface ParsedConversation {
  text: string
  /** The last user message's parts when it carries images (sent to the provider, stored as upstream's agent flush stores them: text, each image "[screenshot]"). */
  parts?: ContentParts
  history: Turn[]
  /** The turn is the assistant's own unfinished reply, sent back to be continued (SillyTavern's "Continue"). */
  continued?: boolean
  /** The caller's `system`/`developer` messages, joined: sent with this agent's own prompt, never stored. */
  instructions: string
  /** Upstream's system prompt for the session id: the `system` messages joined by newlines (null when none). */
  idSystem: string | null
}

/**
 * Upper bound on a caller's system text (the agent's own prompt, memory and tools come first). Upstream has none but
 * its body limit; a SillyTavern character card with its world info and examples runs to tens of thousands of
 * characters, so this only stops text no model could take.
 */
const MAX_INSTRUCTIONS = 1_000_000

/**
 * The last user message is the turn; earlier user/assistant messages are its history. User and assistant
 * messages may carry images (content.ts); system text is text only, as upstream flattens it.
 */
export function splitConversation(
  messages: Array<{ role: string; content?: unknown }>,
  /** Where the turn came from, for upstream's message when it carries no text: `messages` or `input`. */
  where: 'messages' | 'input' = 'messages'
): ParsedConversation {
  const read = messages.map((m, i) =>
    m.role === 'user' || m.role === 'assistant' ? readContent(m.content, `messages[${i}].content`) : null
  )
  // The turn is the last user or assistant message, as upstream takes it: a conversation ending with the assistant's
  // own text (SillyTavern's "Continue", maybe followed by its system nudge) sends that text as the user's message, and
  // it is stored as the user's. Messages of other roles after it (a tool result, a system nudge) are not the turn.
  const at = read.findLastIndex((c) => c !== null)
  if (at < 0) throw new HttpError(400, `No user message found in ${where}`)
  const { text, parts } = read[at]!
  if (!text.trim()) throw new HttpError(400, `No user message found in ${where}`)
  const history = messages.slice(0, at).flatMap((m, i) => {
    const c = read[i]
    return c ? [{ role: m.role as 'user' | 'assistant', content: c.text, ...(c.parts ? { parts: c.parts } : {}) }] : []
  })
  const systems = messages.filter((m) => m.role === 'system').map((m) => readText(m.content))
  return {
    text,
    ...(parts ? { parts } : {}),
    ...(messages[at]!.role === 'assistant' ? { continued: true } : {}),
    history,
    // One line apart, as upstream joins a conversation's system messages.
    instructions: joinInstructions(
      messages.filter(isSystem).map((m) => readText(m.content)),
      '\n'
    ),
    idSystem: systems.length ? systems.join('\n') : null
  }
}

const isSystem = (m: { role: string }) => m.role === 'system' || m.role === 'developer'

/** Non-empty system texts in order, capped: appended after the agent's persona and memory for this caller. */
export function joinInstructions(parts: Array<string | null | undefined>, separator = '\n\n'): string {
  const text = parts
    .map((p) => p?.trim() ?? '')
    .filter(Boolean)
    .join(separator)
  if (text.length > MAX_INSTRUCTIONS)
    throw new HttpError(400, `system messages and instructions must total at most ${MAX_INSTRUCTIONS} characters`)
  return text
}

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  throw new HttpError(400, `${issue.path.join('.') || 'body'}: ${issue.message}`)
}

export async function chatCompletions(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Record<string, unknown>,
  cors: Record<string, string>
): Promise<void> {
  // Upstream's one answer for a missing, non-list or empty `messages`.
  if (!Array.isArray(raw.messages) || raw.messages.length === 0)
    throw new HttpError(400, "Missing or invalid 'messages' field")
  const body = readBody(raw)
  const { text, parts, history, instructions, idSystem, continued } = splitConversation(body.messages)
  // A chat UI's title, tags, follow-ups… request (task-request.ts): answered the same, recorded on its conversation.
  const task = continued || parts ? null : taskRequest(history, text)
  const memoryKey = memoryKeyHeader(req.headers['x-hermes-session-key'])
  const headerSid = sessionHeader(req.headers['x-hermes-session-id'])
  const id = newId('chatcmpl-')
  const echo = { ...cors, ...memoryKeyEcho(memoryKey) }
  const created = Math.floor(Date.now() / 1000)
  // The requested model is echoed, as upstream does (its runs use the profile's model).
  const base = { id, created, model: body.model || ctx.modelName }
  const release = ctx.limiter.admit()
  const turn = (extra: Partial<TurnRequest> = {}) =>
    runApiTurn(ctx, {
      system: instructions,
      idSystem,
      history,
      text,
      parts,
      ...(continued ? { continued } : {}),
      sessionId: headerSid,
      model: body.model,
      ...(memoryKey ? { memoryKey } : {}),
      ...(task ? { task } : {}),
      ...extra
    })

  if (!requestFlag(body.stream, false)) {
    let r: TurnOutcome
    try {
      const key = header(req, 'idempotency-key')
      r = await (key ? ctx.turns.idempotent(key, fingerprint(raw, memoryKey), () => turn()) : turn())
    } finally {
      release()
    }
    // A turn that failed without a reply: upstream's 502 (code, `hermes` block, X-Hermes-Completed/-Partial), so an
    // SDK raises instead of showing the failure as the assistant's message.
    if (r.status === 'error' && !(r.partial && r.reply))
      throw new HttpError(
        502,
        r.error || 'the agent turn failed',
        'server_error',
        'agent_incomplete',
        {
          'x-hermes-session-id': r.sessionId,
          'x-hermes-completed': 'false',
          'x-hermes-partial': r.partial ? 'true' : 'false'
        },
        { hermes: { completed: false, partial: !!r.partial, failed: !r.partial } }
      )
    sendJson(
      res,
      200,
      {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: r.reply },
            finish_reason: r.status === 'interrupted' || r.partial ? 'length' : 'stop'
          }
        ],
        usage: usageOf(r),
        ...(r.partial ? { hermes: truncated(r) } : {})
      },
      {
        ...echo,
        'x-hermes-session-id': r.sessionId,
        ...warningsHeader(r.warnings),
        ...(r.partial ? { 'x-hermes-completed': 'false', 'x-hermes-partial': 'true' } : {})
      }
    )
    return
  }

  // The session is known only once the conversation is resolved: that happens before the stream opens.
  let send = null as ReturnType<typeof openSse> | null
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    send?.({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra
    })
  let handle: TurnHandle | null = null
  let finished = false
  const started = new Set<string>()
  const progress = !chunksOnly(req)
  // The caller hung up: stop the turn rather than let it run (and bill) for nobody.
  let gone = false
  res.on('close', () => {
    gone = true
    if (!finished && handle) ctx.gateway.stop(handle.turnId)
  })
  const open = (sid: string, warnings: string[] = []) => {
    if (send) return
    send = openSse(res, { ...echo, 'x-hermes-session-id': sid, ...warningsHeader(warnings) })
    chunk({ role: 'assistant', content: '' })
  }
  try {
    const r = await turn({
      onStarted: (h, warnings) => {
        handle = h
        // Hung up before the turn started: it stops as soon as it has.
        if (gone) ctx.gateway.stop(h.turnId)
        open(h.sessionId, warnings)
      },
      onDelta: (d) => {
        if (d.kind === 'text' && d.text) chunk({ content: d.text })
        else if (progress && d.kind === 'tool_call' && d.toolCallId && d.toolName && !d.toolName.startsWith('_')) {
          // Upstream's tool-progress frames: a named SSE event, never part of the message content.
          started.add(d.toolCallId)
          send?.(
            { tool: d.toolName, emoji: TOOL_EMOJI, label: d.toolName, toolCallId: d.toolCallId, status: 'running' },
            PROGRESS
          )
        } else if (d.kind === 'tool_result' && d.toolCallId && started.delete(d.toolCallId))
          send?.({ tool: d.toolName ?? null, toolCallId: d.toolCallId, status: 'completed' }, PROGRESS)
      }
    })
    finished = true
    open(r.sessionId)
    if (r.partial) {
      // Upstream's soft-partial finish: the text streamed stands, the finish says it was cut off.
      const message = r.error || 'the reply was cut off'
      send!({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
        usage: usageOf(r),
        error: { message, type: 'agent_error' },
        hermes: truncated(r)
      })
    } else if (r.status === 'error') {
      const message = r.error || 'the agent turn failed'
      send!({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: {}, finish_reason: 'error' }],
        usage: usageOf(r),
        error: { message, type: 'agent_error' },
        hermes: { completed: false, partial: false, failed: true, error: message, error_code: 'agent_error' }
      })
    } else {
      // Usage rides on the finish chunk, as upstream sends it; OpenAI's separate usage chunk follows when asked for.
      chunk({}, r.status === 'interrupted' ? 'length' : 'stop', { usage: usageOf(r) })
      if (body.includeUsage) send!({ ...base, object: 'chat.completion.chunk', choices: [], usage: usageOf(r) })
    }
  } catch (err) {
    finished = true
    const e = httpErrorOf(err)
    // Refused before anything streamed (429, a bad session): a plain error response the SDK can raise.
    if (!send) throw e
    send({ error: { message: e.message, type: e.type, code: e.code } })
  } finally {
    release()
  }
  send!('[DONE]')
  res.end()
}

const PROGRESS = 'hermes.tool.progress'

/**
 * A client whose stream reader takes every `data:` frame for a chunk, whatever its event name, so a progress frame
 * reaches it as a chunk without `choices`. OpenAI's generated SDKs (Node, Python and the rest all send
 * `X-Stainless-Lang`): the Node SDK's stream helper throws and `chunk.choices[0]` (every example's loop) crashes in both
 * languages. The Vercel AI SDK: each progress frame is an error part of the stream. Such a client gets the standard
 * chunks only; a reader that dispatches on the event name (upstream's clients) keeps them.
 */
const chunksOnly = (req: IncomingMessage): boolean => header(req, 'x-stainless-lang') !== undefined || aiSdkClient(req)

/** The Vercel AI SDK (`User-Agent: ai-sdk/…`), which checks every answer and stream frame against OpenAI's own shapes. */
export const aiSdkClient = (req: IncomingMessage): boolean => /(^|\s)ai-sdk\//.test(header(req, 'user-agent') ?? '')

/** The progress frame's `emoji` (upstream's clients show it); Caduceus has no per-tool icons, so one for all. */
const TOOL_EMOJI = '⚡'

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  const s = Array.isArray(v) ? v[0] : v
  return s?.trim() ? s.trim().slice(0, 256) : undefined
}

/**
 * What makes two requests under one Idempotency-Key "the same": upstream's fields, and the caller's memory scope
 * (one caller's result is never another's).
 */
export function fingerprint(raw: Record<string, unknown>, memoryKey: string | undefined): string {
  const pick = ['model', 'messages', 'input', 'instructions', 'tools', 'tool_choice', 'stream']
  return createHash('sha256')
    .update(JSON.stringify([...pick.map((k) => raw[k] ?? null), memoryKey ?? null]))
    .digest('hex')
}

/** Upstream's `hermes` block for an answer that stayed cut off (its finish_reason is `length`). */
const truncated = (r: TurnOutcome) => ({
  completed: false,
  partial: true,
  failed: false,
  error: r.error ?? null,
  error_code: 'output_truncated'
})
