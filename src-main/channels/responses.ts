/**
 * The Responses API (hermes-channels §1): `POST /v1/responses` with `previous_response_id` chaining onto
 * the session the earlier response was recorded in, `GET|DELETE /v1/responses/{id}`. Responses are kept
 * in memory for this server's lifetime (bounded, oldest dropped); their sessions stay in state.db.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { splitConversation, parseBody } from './chat-completions'
import { newId, newSessionId, sessionHeader, textOf, type ApiContext } from './context'
import { TURN_CHANNELS } from './gateway-face'
import { HttpError, sendJson } from './http'

const MAX_KEPT = 1000

const InputItem = z.object({ role: z.enum(['system', 'developer', 'user', 'assistant']), content: z.unknown() }).passthrough()
const Body = z.object({
  model: z.string().optional(),
  input: z.union([z.string().min(1, 'input must not be empty'), z.array(InputItem).min(1, 'input must not be empty')]),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  stream: z.boolean().optional(),
  store: z.boolean().optional()
}).passthrough()

interface Kept {
  body: Record<string, unknown>
  sessionId: string
}

export class ResponseStore {
  private readonly kept = new Map<string, Kept>()
  get(id: string): Kept | undefined {
    return this.kept.get(id)
  }
  put(id: string, k: Kept): void {
    this.kept.set(id, k)
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!)
  }
  delete(id: string): boolean {
    return this.kept.delete(id)
  }
}

export async function createResponse(ctx: ApiContext, store: ResponseStore, req: IncomingMessage, res: ServerResponse, raw: Record<string, unknown>, cors: Record<string, string>): Promise<void> {
  const body = parseBody(Body, raw)
  if (body.stream) throw new HttpError(400, 'stream is not supported on /v1/responses here; use /v1/chat/completions or /v1/runs events', 'invalid_request_error', 'unsupported_parameter')
  let sessionId = sessionHeader(req.headers['x-hermes-session-id'])
  if (body.previous_response_id) {
    const prev = store.get(body.previous_response_id)
    if (!prev) throw new HttpError(404, `No response found with id '${body.previous_response_id}'`, 'invalid_request_error', 'response_not_found')
    sessionId = prev.sessionId
  }
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input.map((i) => ({ role: i.role, content: textOf(i.content) }))
  const { text, history } = splitConversation(items)
  const r = await ctx.gateway.runChannelTurn({ profile: ctx.profile, channel: TURN_CHANNELS.api, text, history, sessionId: sessionId ?? newSessionId() })
  if (r.status === 'error') throw new HttpError(502, r.error || 'the agent turn failed', 'server_error', 'agent_error')
  const id = newId('resp_')
  const response = {
    id, object: 'response', created_at: Math.floor(Date.now() / 1000), status: r.status === 'completed' ? 'completed' : 'incomplete',
    model: ctx.modelName, previous_response_id: body.previous_response_id ?? null, instructions: body.instructions ?? null,
    output: [{ type: 'message', id: newId('msg_'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: r.reply, annotations: [] }] }],
    output_text: r.reply,
    usage: { input_tokens: r.tokens.input, output_tokens: r.tokens.output, total_tokens: r.tokens.input + r.tokens.output },
    error: null, incomplete_details: null, metadata: {}, parallel_tool_calls: false, tool_choice: 'auto', tools: [], temperature: null, top_p: null
  }
  if (body.store !== false) store.put(id, { body: response, sessionId: r.sessionId })
  sendJson(res, 200, response, { ...cors, 'x-hermes-session-id': r.sessionId })
}


export function getResponse(store: ResponseStore, id: string, res: ServerResponse, cors: Record<string, string>): void {
  const k = store.get(id)
  if (!k) throw new HttpError(404, `No response found with id '${id}'`, 'invalid_request_error', 'response_not_found')
  sendJson(res, 200, k.body, { ...cors, 'x-hermes-session-id': k.sessionId })
}

export function deleteResponse(store: ResponseStore, id: string, res: ServerResponse, cors: Record<string, string>): void {
  if (!store.delete(id)) throw new HttpError(404, `No response found with id '${id}'`, 'invalid_request_error', 'response_not_found')
  sendJson(res, 200, { id, object: 'response.deleted', deleted: true }, cors)
}
