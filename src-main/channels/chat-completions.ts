/**
 * `POST /v1/chat/completions` (hermes-channels §1): stateless — the request's `messages` are the whole
 * history — unless `X-Hermes-Session-Id` names a stored session to continue. Every response names the
 * session it was recorded in. `stream: true` answers `chat.completion.chunk` SSE frames ending in [DONE].
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { TURN_CHANNELS, type TurnHandle } from './gateway-face'
import { httpErrorOf, newId, newSessionId, sessionHeader, textOf, usageOf, type ApiContext } from './context'
import { HttpError, openSse, sendJson } from './http'

const Message = z
  .object({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']), content: z.unknown() })
  .passthrough()
const Body = z
  .object({
    model: z.string().optional(),
    messages: z.array(Message).min(1, 'messages must not be empty'),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish()
  })
  .passthrough()

export interface ParsedConversation {
  text: string
  history: Array<{ role: string; content: string }>
  /** The caller's `system`/`developer` messages, joined: sent with this agent's own prompt, never stored. */
  instructions: string
}

/** Upper bound on a caller's system text (the agent's own prompt, memory and tools come first). */
const MAX_INSTRUCTIONS = 32_000

/** The last user message is the turn; earlier user/assistant messages are its history. */
export function splitConversation(messages: Array<{ role: string; content?: unknown }>): ParsedConversation {
  const last = messages[messages.length - 1]!
  if (last.role !== 'user') throw new HttpError(400, 'the last message must have role "user"')
  const text = textOf(last.content)
  if (!text.trim()) throw new HttpError(400, 'the last user message is empty')
  const history = messages
    .slice(0, -1)
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role, content: textOf(m.content) }))
  return { text, history, instructions: joinInstructions(messages.filter(isSystem).map((m) => textOf(m.content))) }
}

const isSystem = (m: { role: string }) => m.role === 'system' || m.role === 'developer'

/** Non-empty system texts in order, capped: appended after the agent's persona and memory for this caller. */
export function joinInstructions(parts: Array<string | null | undefined>): string {
  const text = parts
    .map((p) => p?.trim() ?? '')
    .filter(Boolean)
    .join('\n\n')
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
  const body = parseBody(Body, raw)
  const { text, history, instructions } = splitConversation(body.messages)
  const sessionId = sessionHeader(req.headers['x-hermes-session-id']) ?? newSessionId()
  const headers = { ...cors, 'x-hermes-session-id': sessionId }
  const id = newId('chatcmpl-')
  const created = Math.floor(Date.now() / 1000)
  const base = { id, created, model: ctx.modelName }

  if (!body.stream) {
    const r = await ctx.gateway.runChannelTurn({
      profile: ctx.profile,
      channel: TURN_CHANNELS.api,
      text,
      history,
      sessionId,
      ephemeralPrompt: instructions
    })
    if (r.status === 'error')
      throw new HttpError(502, r.error || 'the agent turn failed', 'server_error', 'agent_error')
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
            finish_reason: r.status === 'interrupted' ? 'length' : 'stop'
          }
        ],
        usage: usageOf(r)
      },
      { ...headers, 'x-hermes-session-id': r.sessionId }
    )
    return
  }

  const send = openSse(res, headers)
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })
  chunk({ role: 'assistant', content: '' })
  let handle: TurnHandle | null = null
  let finished = false
  // The caller hung up: stop the turn rather than let it run (and bill) for nobody.
  res.on('close', () => {
    if (!finished && handle) ctx.gateway.stop(handle.turnId)
  })
  try {
    const r = await ctx.gateway.runChannelTurn({
      profile: ctx.profile,
      channel: TURN_CHANNELS.api,
      text,
      history,
      sessionId,
      ephemeralPrompt: instructions,
      onStarted: (h) => {
        handle = h
      },
      onDelta: (d) => {
        if (d.kind === 'text' && d.text) chunk({ content: d.text })
      }
    })
    finished = true
    if (r.status === 'error')
      send({ error: { message: r.error || 'the agent turn failed', type: 'server_error', code: 'agent_error' } })
    else {
      chunk({}, r.status === 'interrupted' ? 'length' : 'stop')
      if (body.stream_options?.include_usage)
        send({ ...base, object: 'chat.completion.chunk', choices: [], usage: usageOf(r) })
    }
  } catch (err) {
    finished = true
    const e = httpErrorOf(err)
    send({ error: { message: e.message, type: e.type, code: e.code } })
  }
  send('[DONE]')
  res.end()
}
