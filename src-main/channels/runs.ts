/**
 * Runs (hermes-channels §1): `POST /v1/runs` → 202 {run_id, status: "started"}; the turn runs in the background
 * of THIS request/response server, so its lifecycle is observable only by polling `GET /v1/runs/{id}` or reading
 * `GET /v1/runs/{id}/events`: upstream's wire, one `data: {json}` frame per event (no `event:` lines), replayed
 * from the start then live, `: keepalive` during silence, and a closing `: stream closed` comment.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { joinInstructions, parseBody, splitConversation } from './chat-completions'
import { runApiTurn, type TurnRequest } from './channel-turn'
import {
  explicitHistory,
  httpErrorOf,
  memoryKeyEcho,
  memoryKeyHeader,
  newId,
  responseUsageOf,
  sessionIdOf,
  type ApiContext
} from './context'
import { HttpError, openSse, sendJson } from './http'
import { carriedInstructions } from './response-store'
import { InputItem, inputMessages } from './responses'

const MAX_RUNS = 500

const Body = z
  .object({
    input: z.union([z.string(), z.array(InputItem)]),
    session_id: z.string().nullish(),
    previous_response_id: z.string().nullish(),
    instructions: z.string().nullish(),
    model: z.string().nullish()
  })
  .passthrough()

/** `stopping`: a stop was asked for and the turn has not ended yet (upstream's status for it). */
export type RunStatus = 'queued' | 'running' | 'stopping' | 'completed' | 'failed' | 'cancelled'
const live = (r: { status: RunStatus }) => r.status === 'queued' || r.status === 'running' || r.status === 'stopping'
export interface RunEvent {
  event: string
  run_id: string
  [k: string]: unknown
}

interface Run {
  id: string
  status: RunStatus
  sessionId: string | null
  model: string
  lastEvent: string | null
  updatedAt: number
  createdAt: number
  turnId: string | null
  stopRequested: boolean
  output: string | null
  error: string | null
  usage: { input_tokens: number; output_tokens: number; total_tokens: number } | null
  /** Provider warnings of the run's turn (a memory provider left out). */
  warnings: string[]
  events: RunEvent[]
  listeners: Set<(e: RunEvent | null) => void>
}

export class RunRegistry {
  private readonly runs = new Map<string, Run>()

  get(id: string): Run {
    const r = this.runs.get(id)
    if (!r) throw new HttpError(404, `Run not found: ${id}`, 'invalid_request_error', 'run_not_found')
    return r
  }

  /** `sessionId` null: the run's own session, named by its id (upstream's). */
  create(sessionId: string | null, model: string): Run {
    const id = newId('run_')
    const run: Run = {
      id,
      status: 'queued',
      sessionId: sessionId ?? id,
      model,
      lastEvent: null,
      updatedAt: Date.now() / 1000,
      createdAt: Date.now() / 1000,
      turnId: null,
      stopRequested: false,
      output: null,
      error: null,
      usage: null,
      warnings: [],
      events: [],
      listeners: new Set()
    }
    this.runs.set(run.id, run)
    // Drop the oldest finished runs past the bound; a running one is never dropped.
    for (const [id, r] of this.runs) {
      if (this.runs.size <= MAX_RUNS) break
      if (!live(r)) this.runs.delete(id)
    }
    return run
  }

  emit(run: Run, event: string, data: Record<string, unknown> = {}): void {
    const e: RunEvent = { event, run_id: run.id, timestamp: Date.now() / 1000, ...data }
    run.lastEvent = event
    run.updatedAt = e.timestamp as number
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
  model: r.model,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  last_event: r.lastEvent,
  output: r.output,
  error: r.error,
  usage: r.usage,
  warnings: r.warnings
})

export async function submitRun(
  ctx: ApiContext,
  runs: RunRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Record<string, unknown>,
  cors: Record<string, string>,
  /** A stored Response (`previous_response_id` chains a run onto its session and instructions, as upstream does). */
  storedResponse: (id: string) => { sessionId: string; body: Record<string, unknown> } | undefined = () => undefined
): Promise<void> {
  // The memory scope header first, as upstream reads it (before the body); echoed on the 202.
  const memoryKey = memoryKeyHeader(req.headers['x-hermes-session-key'])
  // Upstream's answers: an absent or empty `input` is missing; one that is neither text nor a list carries no message.
  if (!raw.input || (Array.isArray(raw.input) && raw.input.length === 0))
    throw new HttpError(400, "Missing 'input' field")
  if (typeof raw.input !== 'string' && !Array.isArray(raw.input))
    throw new HttpError(400, 'No user message found in input')
  const body = parseBody(Body, raw)
  // An explicit history comes before the input and takes the place of a previous_response_id chain (upstream's order).
  const given = explicitHistory(raw.conversation_history)
  // Upstream's order: the body's session_id, then the session of previous_response_id (an unknown one is ignored, as
  // upstream ignores it), else a session of the run's own named by its id — never X-Hermes-Session-Id, which upstream's
  // runs do not read (test/fixtures/upstream/api-session-choice). A chained run without instructions keeps its chain's.
  const previous = body.previous_response_id && !given.length ? storedResponse(body.previous_response_id) : undefined
  // Items read as /v1/responses reads them: a function_call_output answering the chained response's call is the turn.
  const conv = splitConversation([...given, ...inputMessages(body.input, previous?.body)], 'input')
  const callerInstructions = body.instructions ?? carriedInstructions(previous)
  const instructions = joinInstructions([callerInstructions, conv.instructions])
  const idSystem = [callerInstructions, conv.idSystem].filter((x): x is string => Boolean(x)).join('\n') || null
  // The body's id is already text (no header decoding), checked by the same rule as the header's.
  const sessionId = (body.session_id ? sessionIdOf(body.session_id) : undefined) ?? previous?.sessionId ?? null
  const release = ctx.limiter.admit()
  const run = runs.create(sessionId, body.model || ctx.modelName)
  sendJson(res, 202, { run_id: run.id, status: 'started' }, { ...cors, ...memoryKeyEcho(memoryKey) })
  const turn = {
    system: instructions,
    idSystem,
    history: conv.history,
    text: conv.text,
    parts: conv.parts,
    ...(conv.continued ? { continued: true } : {}),
    model: body.model ?? undefined,
    ...(memoryKey ? { memoryKey } : {})
  }
  void execute(ctx, runs, run, turn).finally(release)
}

async function execute(
  ctx: ApiContext,
  runs: RunRegistry,
  run: Run,
  turn: Pick<TurnRequest, 'system' | 'idSystem' | 'history' | 'text' | 'parts' | 'model' | 'memoryKey'>
): Promise<void> {
  const toolStarted = new Map<string, { name: string | null; at: number }>()
  try {
    const r = await runApiTurn(ctx, {
      ...turn,
      sessionId: run.sessionId ?? undefined,
      onStarted: (h, warnings) => {
        run.warnings = warnings
        run.turnId = h.turnId
        run.sessionId = h.sessionId
        if (run.status === 'queued') run.status = 'running'
        if (run.stopRequested) ctx.gateway.stop(h.turnId)
      },
      onDelta: (d) => {
        if (d.kind === 'text' && d.text) runs.emit(run, 'message.delta', { delta: d.text })
        else if (d.kind === 'tool_call' && d.toolCallId) {
          toolStarted.set(d.toolCallId, { name: d.toolName ?? null, at: Date.now() })
          runs.emit(run, 'tool.started', { tool: d.toolName ?? null, preview: d.toolName ?? null })
        } else if (d.kind === 'tool_result' && d.toolCallId) {
          const t = toolStarted.get(d.toolCallId)
          toolStarted.delete(d.toolCallId)
          const duration = t ? Math.round(Date.now() - t.at) / 1000 : 0
          runs.emit(run, 'tool.completed', { tool: d.toolName ?? t?.name ?? null, duration, error: false })
        }
      }
    })
    run.sessionId = r.sessionId
    if (r.warnings.length) run.warnings = r.warnings
    run.usage = responseUsageOf(r)
    // A run asked to stop ends cancelled whatever its turn did meanwhile (upstream's order of checks).
    // A partial answer (still cut off, text kept) completes the run with that text, as upstream's runs do.
    if ((r.status === 'completed' || (r.partial && r.reply)) && !run.stopRequested) {
      run.status = 'completed'
      run.output = r.reply
      runs.emit(run, 'run.completed', {
        output: r.reply,
        usage: run.usage,
        ...(run.warnings.length ? { warnings: run.warnings } : {})
      })
    } else if (r.status === 'interrupted' || run.stopRequested) {
      run.status = 'cancelled'
      run.output = r.reply
      runs.emit(run, 'run.cancelled')
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
  const close = () => {
    if (!res.writableEnded) res.end(': stream closed\n\n')
  }
  for (const e of run.events) send(e)
  const finishedAlready = !live(run)
  if (finishedAlready) return close()
  const listener = (e: RunEvent | null) => (e ? send(e) : close())
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
  if (live(run)) {
    run.stopRequested = true
    run.status = 'stopping'
    run.lastEvent = 'run.stopping'
    run.updatedAt = Date.now() / 1000
    if (run.turnId) ctx.gateway.stop(run.turnId)
  }
  sendJson(res, 200, { ...statusOf(run), stop_requested: run.stopRequested }, cors)
}
