/**
 * The Responses API (hermes-channels §1): `POST /v1/responses` with `previous_response_id` (or a `conversation`
 * name, upstream's) chaining onto the session the earlier response was recorded in, `GET|DELETE /v1/responses/{id}`.
 * Responses are kept on disk in Caduceus's folder of the profile (response-store.ts); their sessions stay in state.db.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { aiSdkClient, fingerprint, header, joinInstructions, splitConversation, parseBody } from './chat-completions'
import { runApiTurn, type TurnOutcome, type TurnRequest } from './channel-turn'
import {
  explicitHistory,
  memoryKeyEcho,
  memoryKeyHeader,
  newId,
  requestFlag,
  responseUsageOf,
  type ApiContext
} from './context'
import type { ChannelTurnResult, TurnHandle } from './gateway-face'
import { HttpError, openSse, sendJson, warningsHeader } from './http'
import { carriedInstructions, ResponseStore } from './response-store'
import { ResponseTools } from './response-tools'
import { taskRequest } from './task-request'
import { errorMessage } from '@shared/contract/errors'

// Input items as upstream takes them: a bare string is a user message, an item without a role is the user's. Items
// that are no messages (a replayed function_call / function_call_output) carry no turn text and are skipped.
export const InputItem = z.union([
  z.string(),
  z.object({ role: z.string().optional(), content: z.unknown().optional(), type: z.unknown().optional() }).passthrough()
])

/**
 * A Responses or Runs `input` as the messages splitConversation reads (both routes read their items alike): strings
 * and items without a role are the user's, items that are no messages are left out, and outputs of function calls
 * sent back after the last message are the turn (callOutputsTurn), checked against `previous` (the chained response).
 */
export function inputMessages(
  input: string | Array<z.infer<typeof InputItem>>,
  previous: Record<string, unknown> | undefined
): Array<{ role: string; content?: unknown }> {
  const items =
    typeof input === 'string'
      ? [{ role: 'user', content: input }]
      : input.flatMap((i) =>
          typeof i === 'string'
            ? [{ role: 'user', content: i }]
            : i.type !== undefined && i.type !== 'message'
              ? []
              : [{ ...i, role: i.role ?? 'user' }]
        )
  // Upstream reads such outputs as empty user messages and refuses the request ("No user message found in input").
  const answered = callOutputsTurn(input, previous)
  if (answered) items.push({ role: 'user', content: answered })
  if (items.length === 0) throw new HttpError(400, 'No user message found in input')
  return items
}
const Body = z
  .object({
    model: z.string().optional(),
    input: z.union([z.string(), z.array(InputItem)]),
    instructions: z.string().nullish(),
    previous_response_id: z.string().nullish(),
    /** A conversation by name (upstream's): chains onto its latest response, as previous_response_id would. */
    conversation: z.unknown().optional(),
    stream: z.unknown().optional(),
    store: z.unknown().optional()
  })
  .passthrough()

export async function createResponse(
  ctx: ApiContext,
  store: ResponseStore,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Record<string, unknown>,
  corsOnly: Record<string, string>
): Promise<void> {
  // The memory scope header is read first, as upstream reads it (before the body), and echoed on the answer.
  const memoryKey = memoryKeyHeader(req.headers['x-hermes-session-key'])
  const cors = { ...corsOnly, ...memoryKeyEcho(memoryKey) }
  // Upstream's answers for an absent, mistyped or empty `input`.
  if (raw.input === undefined || raw.input === null) throw new HttpError(400, "Missing 'input' field")
  if (typeof raw.input !== 'string' && !Array.isArray(raw.input))
    throw new HttpError(400, "'input' must be a string or array")
  if (raw.input.length === 0) throw new HttpError(400, 'No user message found in input')
  const body = parseBody(Body, raw)
  const conversation = conversationName(body.conversation)
  if (conversation && body.previous_response_id)
    throw new HttpError(400, "Cannot use both 'conversation' and 'previous_response_id'")
  // An explicit history takes the place of any chain (upstream's precedence). A named conversation not seen yet (or
  // whose latest response is gone) starts anew, as upstream's does.
  const given = explicitHistory(raw.conversation_history)
  let prev = !given.length && conversation ? store.latestOf(conversation) : undefined
  if (body.previous_response_id && !given.length) {
    prev = store.get(body.previous_response_id)
    if (!prev)
      throw new HttpError(
        404,
        `Previous response not found: ${body.previous_response_id}`,
        'invalid_request_error',
        'response_not_found'
      )
  }
  // A chained request without instructions keeps the ones its chain was given (upstream carries them forward).
  const callerInstructions = body.instructions ?? carriedInstructions(prev)
  const conv = splitConversation([...given, ...inputMessages(body.input, prev?.body)], 'input')
  // `instructions` first, then any system/developer input items (Responses API order).
  const instructions = joinInstructions([callerInstructions, conv.instructions])
  const idSystem = [callerInstructions, conv.idSystem].filter((x): x is string => Boolean(x)).join('\n') || null
  // A chat UI's title, tags, follow-ups… request sent here (Open WebUI's Responses connections send them as they send
  // turns): answered the same and recorded on the conversation it quotes, as on chat completions (task-request.ts).
  // A chained request or one given its history is a conversation's own turn.
  const task = prev || given.length || conv.continued || conv.parts ? null : taskRequest(conv.history, conv.text)
  // Upstream's session for a response: the chain's (previous_response_id, or a named conversation's latest), else a
  // new one for every request — identical inputs included, its X-Hermes-Session-Id header unread
  // (test/fixtures/upstream/api-session-choice). A chat UI's task is the exception: runApiTurn files it (task-request.ts).
  const sessionId = prev?.sessionId ?? (task ? undefined : randomUUID())
  const id = newId('resp_')
  const itemId = newId('msg_')
  const createdAt = Math.floor(Date.now() / 1000)
  const model = body.model || ctx.modelName
  const message = (status: string, text: string) => ({
    type: 'message',
    id: itemId,
    status,
    role: 'assistant',
    content: status === 'in_progress' ? [] : [part(text)]
  })
  let warnings: string[] = []
  // The Vercel AI SDK takes a function_call item for a call it must run and refuses function_call_output in the output
  // ("Invalid JSON response"): it gets the reply alone. Every other client gets the tools listed, as upstream lists them.
  const tools = new ResponseTools(!aiSdkClient(req))
  // A finished response lists the tools the turn ran, then the reply (upstream's order); `parts`: see items().
  const shell = (status: string, reply: string, r?: ChannelTurnResult, parts = false) => ({
    id,
    object: 'response',
    created_at: createdAt,
    status,
    model,
    previous_response_id: body.previous_response_id ?? null,
    instructions: callerInstructions ?? null,
    output: r ? [...tools.items(parts), message('completed', reply)] : [],
    output_text: reply,
    usage: r ? responseUsageOf(r) : null,
    error: null,
    incomplete_details: null,
    metadata: {},
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    temperature: null,
    top_p: null,
    // Provider warnings of this turn (a memory provider left out): also in the X-Hermes-Warnings header.
    warnings: r?.warnings ?? warnings
  })
  const release = ctx.limiter.admit()
  const run = (extra: Partial<TurnRequest> = {}) =>
    runApiTurn(ctx, {
      system: instructions,
      idSystem,
      history: conv.history,
      text: conv.text,
      ...(conv.parts ? { parts: conv.parts } : {}),
      ...(conv.continued ? { continued: true } : {}),
      // Chained: upstream's model reads the chain's history, then the input items before the last (a client may send
      // more than one new message); they are stored in the chain's session before the message.
      ...(prev && conv.history.length ? { prelude: conv.history } : {}),
      sessionId,
      model: body.model,
      ...(memoryKey ? { memoryKey } : {}),
      ...(task ? { task } : {}),
      ...extra
    })
  // Stored unless `store: false`; a streamed one from its response.created on (in_progress, then failed or finished),
  // as upstream keeps each snapshot, so GET /v1/responses/{id} answers while it streams.
  const storing = requestFlag(body.store, true)
  const stash = (response: Record<string, unknown>, sid: string) => {
    if (storing) store.put(id, { body: response, sessionId: sid })
  }
  const keep = (response: Record<string, unknown>, r: ChannelTurnResult) => {
    if (!storing) return
    stash(response, r.sessionId)
    if (conversation) store.name(conversation, id)
  }

  if (!requestFlag(body.stream, false)) {
    let r: TurnOutcome
    try {
      const key = header(req, 'idempotency-key')
      const collect = (): Partial<TurnRequest> => ({
        onDelta: (d) => {
          if (d.kind === 'tool_call') tools.started(d.toolCallId, d.toolName, d.text)
          else if (d.kind === 'tool_result') tools.finished(d.toolCallId, d.text)
        }
      })
      r = await (key ? ctx.turns.idempotent(key, fingerprint(raw, memoryKey), () => run(collect())) : run(collect()))
    } finally {
      release()
    }
    if (failed(r)) throw new HttpError(502, r.error || 'the agent turn failed', 'server_error', 'agent_error')
    const response = shell(finishedStatus(r), r.reply, r)
    keep(response, r)
    return sendJson(res, 200, response, { ...cors, 'x-hermes-session-id': r.sessionId, ...warningsHeader(r.warnings) })
  }
  // Streaming: the whole Responses event sequence the SDK's stream helpers rebuild the response from:
  // created → in_progress → (a tool's function_call item added/done, its output added/done)… → the reply's
  // output_item.added → content_part.added → output_text.delta… → output_text.done → content_part.done →
  // output_item.done → completed. The reply's item opens with its first text. Each event's type is its SSE event name.
  let send = null as ReturnType<typeof openSse> | null
  let seq = 0
  const event = (type: string, data: Record<string, unknown>) => send?.({ type, sequence_number: seq++, ...data }, type)
  let at: { item_id: string; output_index: number; content_index: number } | null = null
  let openedIn = ''
  const open = (sid: string) => {
    if (send) return
    openedIn = sid
    send = openSse(res, { ...cors, 'x-hermes-session-id': sid, ...warningsHeader(warnings) })
    stash(shell('in_progress', ''), sid)
    event('response.created', { response: shell('in_progress', '') })
    event('response.in_progress', { response: shell('in_progress', '') })
  }
  const reply = () => {
    if (at) return at
    at = { item_id: itemId, output_index: tools.claim(), content_index: 0 }
    event('response.output_item.added', { output_index: at.output_index, item: message('in_progress', '') })
    event('response.content_part.added', { ...at, part: part('') })
    return at
  }
  // Upstream's streamed response keeps as its text every delta it streamed (the text before a tool call and the
  // break after it included), the turn's reply only when none was streamed.
  let streamed = ''
  const delta = (text: string) => {
    streamed += text
    event('response.output_text.delta', { ...reply(), delta: text, logprobs: [] })
  }
  const itemEvents = (evs: ReturnType<ResponseTools['started']>) => evs.forEach((e) => event(e.type, e.data))
  let handle: TurnHandle | null = null
  let finished = false
  // The caller hung up: stop the turn (it is then kept as an incomplete response, as upstream keeps one).
  let gone = false
  res.on('close', () => {
    gone = true
    if (!finished && handle) ctx.gateway.stop(handle.turnId)
  })
  try {
    const r = await run({
      onStarted: (h, w) => {
        handle = h
        // Hung up before the turn started: it stops as soon as it has.
        if (gone) ctx.gateway.stop(h.turnId)
        warnings = w
        open(h.sessionId)
      },
      onDelta: (d) => {
        if (d.kind === 'text' && d.text) delta(d.text)
        else if (d.kind === 'tool_call') itemEvents(tools.started(d.toolCallId, d.toolName, d.text))
        else if (d.kind === 'tool_result') itemEvents(tools.finished(d.toolCallId, d.text))
      }
    })
    finished = true
    open(r.sessionId)
    if (failed(r)) {
      // Upstream's failed envelope: the error (also as the output's text, which it shows as the reply) and usage.
      const message = r.error || 'the agent turn failed'
      const response = {
        ...shell('failed', message, r),
        error: { code: 'server_error', type: 'server_error', message }
      }
      stash(response, r.sessionId)
      event('response.failed', { response })
    } else {
      // A reply none of whose text was streamed (the turn's no-reply explanation) goes out as one delta, as upstream's
      // does, so a client reading only the deltas still gets it.
      if (!streamed && r.reply) delta(r.reply)
      const text = streamed || r.reply
      const response = shell(finishedStatus(r), text, r, true)
      keep(response, r)
      const last = reply()
      event('response.output_text.done', { ...last, text, logprobs: [] })
      event('response.content_part.done', { ...last, part: part(text) })
      event('response.output_item.done', { output_index: last.output_index, item: message('completed', text) })
      event(finishedStatus(r) === 'completed' ? 'response.completed' : 'response.incomplete', { response })
    }
  } catch (err) {
    finished = true
    if (!send) throw err
    const response = {
      ...shell('failed', ''),
      error: { code: 'server_error', type: 'server_error', message: errorMessage(err) }
    }
    stash(response, openedIn)
    event('response.failed', { response })
  } finally {
    release()
  }
  res.end()
}

/** `conversation` as a name, or as the SDK's object form `{id}` (that id is the name); null when absent or empty. */
function conversationName(c: unknown): string | null {
  if (c === undefined || c === null || c === '') return null
  if (typeof c === 'string') return c
  const id = typeof c === 'object' && !Array.isArray(c) ? (c as { id?: unknown }).id : undefined
  if (typeof id === 'string' && id) return id
  throw new HttpError(400, "'conversation' must be a string or an object with a string 'id'")
}

const part = (text: string) => ({ type: 'output_text', text, annotations: [] })

export function getResponse(store: ResponseStore, id: string, res: ServerResponse, cors: Record<string, string>): void {
  const k = store.get(id)
  if (!k) throw new HttpError(404, `Response not found: ${id}`, 'invalid_request_error', 'response_not_found')
  sendJson(res, 200, k.body, { ...cors, 'x-hermes-session-id': k.sessionId })
}

export function deleteResponse(
  store: ResponseStore,
  id: string,
  res: ServerResponse,
  cors: Record<string, string>
): void {
  if (!store.delete(id))
    throw new HttpError(404, `Response not found: ${id}`, 'invalid_request_error', 'response_not_found')
  sendJson(res, 200, { id, object: 'response', deleted: true }, cors)
}

/**
 * A client that reads the `function_call` items of a response as calls for it to run (the pattern of the OpenAI SDKs'
 * examples and agent frameworks) sends back one `function_call_output` per call, by the `call_id` it got, usually with
 * `previous_response_id` and no new message. This server's agent has already run its tools, so such a request is a
 * turn whose message reports those outputs to the agent, one block per call. A `call_id` that names no call of the
 * previous response (or of a `function_call` item in this input) is refused as OpenAI refuses it. Null when the input
 * ends with a message (outputs before it are history, as before) or holds no outputs.
 */
function callOutputsTurn(input: unknown, previous: Record<string, unknown> | undefined): string | null {
  if (!Array.isArray(input)) return null
  const outputs: Array<{ callId: string; text: string }> = []
  for (const item of input as unknown[]) {
    const t = item && typeof item === 'object' ? (item as Record<string, unknown>) : null
    if (t?.type === 'function_call_output')
      outputs.push({ callId: String(t.call_id ?? ''), text: outputText(t.output) })
    else if (typeof item === 'string' || (t && (t.type === undefined || t.type === 'message'))) outputs.length = 0
  }
  if (!outputs.length) return null
  const calls = new Map<string, string>()
  for (const list of [previous?.output, input])
    if (Array.isArray(list))
      for (const c of list as Array<Record<string, unknown> | null>)
        if (c?.type === 'function_call' && typeof c.call_id === 'string') calls.set(c.call_id, String(c.name ?? ''))
  return outputs
    .map(({ callId, text }) => {
      if (!calls.has(callId))
        throw new HttpError(
          400,
          `No tool call found for function call output with call_id ${callId}.`,
          'invalid_request_error',
          null,
          {},
          { param: 'input' }
        )
      const name = calls.get(callId)
      return `Output of function call ${callId}${name ? ` (${name})` : ''}:\n${text}`
    })
    .join('\n\n')
}

/** A function_call_output's `output`: text, or a list of parts whose text is read (other parts are left out). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (!Array.isArray(output)) return output === undefined || output === null ? '' : JSON.stringify(output)
  return output
    .map((p: unknown) =>
      p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
        ? (p as { text: string }).text
        : ''
    )
    .filter(Boolean)
    .join('\n')
}

/** A failed turn: an error with no answer. A partial answer (kept text, still cut off) is answered, as upstream does. */
const failed = (r: ChannelTurnResult) => r.status === 'error' && !(r.partial && r.reply)
const finishedStatus = (r: ChannelTurnResult) => (r.status === 'completed' || r.partial ? 'completed' : 'incomplete')
