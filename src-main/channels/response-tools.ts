/**
 * The tools a Responses turn ran, as the Responses API lists them (and upstream does): a `function_call` item per
 * call and a `function_call_output` item per result, before the reply's `message` item. Built from the turn's tool
 * deltas (arguments and output as the live preview carries them: whole up to 32 KB), streamed as output items while
 * the turn runs. Tools whose names start with `_` are internal and never listed.
 */
import { newId } from './context'

interface Call {
  id: string
  callId: string
  name: string
  args: string
  index: number
  output?: { id: string; text: string; index: number }
}

export interface ItemEvent {
  type: 'response.output_item.added' | 'response.output_item.done'
  data: { output_index: number; item: Record<string, unknown> }
}

export class ResponseTools {
  private readonly calls = new Map<string, Call>()
  private next = 0

  /**
   * `listed: false` leaves the turn's tools out of the response (the reply alone): for a client that reads a
   * `function_call` item as a call for it to run, and refuses a `function_call_output` in the output (the AI SDK).
   */
  constructor(private readonly listed = true) {}

  /** The next output_index (the message item claims one when it opens). */
  claim(): number {
    return this.next++
  }

  /** A call began: its `output_item.added` (none for an internal or unnamed tool). */
  started(callId: string | undefined, name: string | undefined, args: string | undefined): ItemEvent[] {
    if (!this.listed || !callId || !name || name.startsWith('_') || this.calls.has(callId)) return []
    const call: Call = { id: newId('fc_'), callId, name, args: args ?? '', index: this.claim() }
    this.calls.set(callId, call)
    return [added(call.index, callItem(call, 'in_progress'))]
  }

  /** A call's result: the call's `output_item.done`, then its output's `added` and `done`. */
  finished(callId: string | undefined, text: string | undefined): ItemEvent[] {
    const call = callId ? this.calls.get(callId) : undefined
    if (!call || call.output) return []
    call.output = { id: newId('fco_'), text: text ?? '', index: this.claim() }
    const out = outputItem(call, true)
    return [done(call.index, callItem(call, 'completed')), added(call.output.index, out), done(call.output.index, out)]
  }

  /**
   * The items of the finished response, in call order. Upstream's streamed response carries each output as input
   * text parts, its non-streamed one as a string: `parts` picks which.
   */
  items(parts: boolean): Array<Record<string, unknown>> {
    return [...this.calls.values()].flatMap((c) => [
      callItem(c, 'completed'),
      ...(c.output ? [outputItem(c, parts)] : [])
    ])
  }
}

const added = (output_index: number, item: Record<string, unknown>): ItemEvent => ({
  type: 'response.output_item.added',
  data: { output_index, item }
})
const done = (output_index: number, item: Record<string, unknown>): ItemEvent => ({
  type: 'response.output_item.done',
  data: { output_index, item }
})

const callItem = (c: Call, status: string) => ({
  id: c.id,
  type: 'function_call',
  status,
  name: c.name,
  call_id: c.callId,
  arguments: c.args
})

const outputItem = (c: Call, parts: boolean) => ({
  id: c.output!.id,
  type: 'function_call_output',
  call_id: c.callId,
  output: parts ? [{ type: 'input_text', text: c.output!.text }] : c.output!.text,
  status: 'completed'
})
