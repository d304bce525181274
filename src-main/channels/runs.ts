/**
 * Runs (hermes-channels §1): `POST /v1/runs` → 202 {run_id}; the turn runs in the background of THIS
 * request/response server, so its lifecycle is observable only by polling `GET /v1/runs/{id}` or reading
 * `GET /v1/runs/{id}/events` (SSE, replayed from the start, then live); `POST /v1/runs/{id}/stop`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { joinInstructions, parseBody, splitConversation } from './chat-completions'
import { httpErrorOf, newId, newSessionId, sessionHeader, textOf, type ApiContext } from './context'
import { TURN_CHANNELS } from './gateway-face'
import { HttpError, openSse, sendJson } from './http'

const MAX_RUNS = 500

const Body = z
  .object({
    input: z.union([
      z.string().min(1, 'input must not be empty'),
      z.array(z.object({ role: z.string(), content: z.unknown() }).passthrough()).min(1)
    ]),
    session_id: z.string().nullish(),
    instructions: z.string().nullish()
  })
  .passthrough()

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled'
export interface RunEvent {
  event: string
  run_id: string
  [k: string]: unknown
}

interface Run {
  id: string
  status: RunStatus
  sessionId: string
  createdAt: number
  turnId: string | null
  stopRequested: boolean
  output: string | null
  error: string | null
  usage: { input_tokens: number; output_tokens: number; total_tokens: number } | null
  events: RunEvent[]
  listeners: Set<(e: RunEvent | null) => void>
}

export class RunRegistry {
  private readonly runs = new Map<string, Run>()

  get(id: string): Run {
    const r = this.runs.get(id)
    if (!r) throw new HttpError(404, `No run found with id '${id}'`, 'invalid_request_error', 'run_not_found')
    return r
  }

  create(sessionId: string): Run {
    const run: Run = {
      id: newId('run_'),
      status: 'queued',
      sessionId,
      createdAt: Math.floor(Date.now() / 1000),
      turnId: null,
      stopRequested: false,
      output: null,
      error: null,
      usage: null,
      events: [],
      listeners: new Set()
    }
    this.runs.set(run.id, run)
    // Drop the oldest finished runs past the bound; a running one is never dropped.
    for (const [id, r] of this.runs) {
      if (this.runs.size <= MAX_RUNS) break
      if (r.status !== 'running' && r.status !== 'queued') this.runs.delete(id)
    }
    return run
  }

  emit(run: Run, event: string, data: Record<string, unknown> = {}): void {
    const e: RunEvent = { event, run_id: run.id, timestamp: Date.now() / 1000, ...data }
    run.events.push(e)
    for (const l of run.listeners) l(e)
  }

  end(run: Run): void {
    for (const l of run.listeners) l(null)
    run.listeners.clear()
  }
}

export const statusOf = (r: Run) => ({
  object: 'hermes.run',
  run_id: r.id,
  status: r.status,
  session_id: r.sessionId,
  created_at: r.createdAt,
  output: r.output,
  error: r.error,
  usage: r.usage
})

export async function submitRun(
  ctx: ApiContext,
  runs: RunRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Record<string, unknown>,
  cors: Record<string, string>
): Promise<void> {
  const body = parseBody(Body, raw)
  const items =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : body.input.map((i) => ({ role: i.role, content: textOf(i.content) }))
  const conv = splitConversation(items)
  const { text, history } = conv
  const instructions = joinInstructions([body.instructions, conv.instructions])
  const sessionId = sessionHeader(body.session_id ?? req.headers['x-hermes-session-id']) ?? newSessionId()
  const run = runs.create(sessionId)
  sendJson(
    res,
    202,
    { object: 'hermes.run', run_id: run.id, status: run.status, session_id: sessionId },
    { ...cors, 'x-hermes-session-id': sessionId }
  )
  void execute(ctx, runs, run, text, history, instructions)
}

async function execute(
  ctx: ApiContext,
  runs: RunRegistry,
  run: Run,
  text: string,
  history: Array<{ role: string; content: string }>,
  instructions: string
): Promise<void> {
  try {
    const r = await ctx.gateway.runChannelTurn({
      profile: ctx.profile,
      channel: TURN_CHANNELS.api,
      text,
      history,
      sessionId: run.sessionId,
      ephemeralPrompt: instructions,
      onStarted: (h) => {
        run.turnId = h.turnId
        run.status = 'running'
        runs.emit(run, 'run.started', { session_id: run.sessionId })
        if (run.stopRequested) ctx.gateway.stop(h.turnId)
      },
      onDelta: (d) => {
        if (d.kind === 'text' && d.text) runs.emit(run, 'message.delta', { delta: d.text })
        else if (d.kind === 'tool_call')
          runs.emit(run, 'tool.started', { tool_name: d.toolName ?? null, tool_call_id: d.toolCallId ?? null })
        else if (d.kind === 'tool_result')
          runs.emit(run, 'tool.completed', { tool_name: d.toolName ?? null, tool_call_id: d.toolCallId ?? null })
      }
    })
    run.sessionId = r.sessionId
    run.usage = {
      input_tokens: r.tokens.input,
      output_tokens: r.tokens.output,
      total_tokens: r.tokens.input + r.tokens.output
    }
    if (r.status === 'completed') {
      run.status = 'completed'
      run.output = r.reply
      runs.emit(run, 'run.completed', { output: r.reply, usage: run.usage, session_id: r.sessionId })
    } else if (r.status === 'interrupted') {
      run.status = 'cancelled'
      run.output = r.reply
      runs.emit(run, 'run.cancelled', { output: r.reply, session_id: r.sessionId })
    } else {
      run.status = 'failed'
      run.error = r.error || 'the agent turn failed'
      runs.emit(run, 'run.failed', { error: run.error })
    }
  } catch (err) {
    run.status = 'failed'
    run.error = httpErrorOf(err).message
    runs.emit(run, 'run.failed', { error: run.error })
  } finally {
    runs.end(run)
  }
}

export function runEvents(runs: RunRegistry, id: string, res: ServerResponse, cors: Record<string, string>): void {
  const run = runs.get(id)
  const send = openSse(res, cors)
  for (const e of run.events) send(e, e.event)
  const finishedAlready = run.status !== 'queued' && run.status !== 'running'
  if (finishedAlready) {
    send('[DONE]')
    return void res.end()
  }
  const listener = (e: RunEvent | null) => {
    if (e) return send(e, e.event)
    send('[DONE]')
    res.end()
  }
  run.listeners.add(listener)
  res.on('close', () => run.listeners.delete(listener))
}

export function stopRun(
  ctx: ApiContext,
  runs: RunRegistry,
  id: string,
  res: ServerResponse,
  cors: Record<string, string>
): void {
  const run = runs.get(id)
  if (run.status === 'queued' || run.status === 'running') {
    run.stopRequested = true
    if (run.turnId) ctx.gateway.stop(run.turnId)
  }
  sendJson(res, 200, { ...statusOf(run), stop_requested: run.stopRequested }, cors)
}
