/**
 * A provider's response body, counted and re-cut before any SDK decodes it.
 *
 * The SDKs' SSE decoders concatenate their whole pending buffer with every new chunk and rescan it from the
 * start, so a reply without event boundaries costs time quadratic in its size (100 MB on one line froze the
 * host for seconds). Here every byte is scanned once: chunks are held in a list until an SSE event boundary
 * (a blank line: \n\n, \r\r or \r\n\r\n) arrives, then handed on as one piece ending at that boundary, so the
 * SDK's buffer is empty after each piece and its rescans are linear too. Two limits end the reply with a
 * clear error: the whole body (`max_response_bytes`) and the longest line or pending event (`max_line_bytes`).
 * A piece ending with the OpenAI-style `data: [DONE]` event ends the body: the reply is complete, so a server
 * that keeps the connection open after it is not waited on (the inactivity clock would turn it into an error).
 */
import { ProviderError } from './types'

export interface BodyLimits {
  maxResponseBytes: number
  maxLineBytes: number
}

const mb = (n: number) => (n >= 1 << 20 ? `${+(n / (1 << 20)).toFixed(1)} MB` : `${n} bytes`)

export const responseTooLarge = (limit: number) =>
  new ProviderError(
    'malformed',
    `the provider's reply was cut: it exceeded ${mb(limit)} (provider_limits.max_response_bytes)`
  )
export const lineTooLong = (limit: number) =>
  new ProviderError(
    'malformed',
    `the provider's reply was cut: it sent a line or event longer than ${mb(limit)} (provider_limits.max_line_bytes)`
  )

/** Scans bytes once, remembering the tail of the previous chunk, for blank-line event boundaries. */
export class EventSplitter {
  private lineBytes = 0
  private prev = [0, 0, 0] // the last three bytes seen, newest last

  /** Index just past the last event boundary in `chunk`, or -1; throws when a line outgrows `maxLine`. */
  lastBoundary(chunk: Uint8Array, maxLine: number): number {
    let last = -1
    const p = this.prev
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]
      if (b === 10 || b === 13) {
        this.lineBytes = 0
        const [a2, a1, a0] = p // a0 is the byte just before b
        if ((b === 10 && a0 === 10) || (b === 13 && a0 === 13)) last = i + 1
        else if (b === 10 && a0 === 13 && a1 === 10 && a2 === 13) last = i + 1
      } else if (++this.lineBytes > maxLine) throw lineTooLong(maxLine)
      p[0] = p[1]
      p[1] = p[2]
      p[2] = b
    }
    return last
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]
  const out = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const tailDecoder = new TextDecoder()
const DONE_AT_START = /(?:^|[\r\n])data: ?\[DONE\][ \t]*(?:\r\n|\r|\n){2}$/
const DONE_AFTER_LINE = /[\r\n]data: ?\[DONE\][ \t]*(?:\r\n|\r|\n){2}$/

/** Whether an event-aligned piece ends with the `[DONE]` event (only its last bytes are looked at). */
function endsWithDone(piece: Uint8Array): boolean {
  const tail = 48
  if (piece.length <= tail) return DONE_AT_START.test(tailDecoder.decode(piece))
  return DONE_AFTER_LINE.test(tailDecoder.decode(piece.subarray(piece.length - tail)))
}

/**
 * Wraps `source`: `onBytes` runs for every chunk that arrives (the inactivity clock), `onLimit` when a limit is
 * passed (the caller aborts the request; the SDK then sees the stream fail with that error), `onDone` when the body
 * ended with the `[DONE]` event (the SDKs swallow it, so this is the only place that knows the reply was complete).
 */
export function boundedBody(
  source: ReadableStream<Uint8Array>,
  limits: BodyLimits,
  onBytes: () => void,
  onLimit: (err: ProviderError) => void,
  onDone?: () => void
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  const splitter = new EventSplitter()
  const maxLine = limits.maxLineBytes > 0 ? limits.maxLineBytes : Infinity
  const maxTotal = limits.maxResponseBytes > 0 ? limits.maxResponseBytes : Infinity
  let pending: Uint8Array[] = []
  let pendingSize = 0
  let total = 0
  const fail = (ctl: ReadableStreamDefaultController<Uint8Array>, err: ProviderError) => {
    pending = []
    onLimit(err)
    ctl.error(err)
    void reader.cancel(err).catch(() => undefined)
  }
  return new ReadableStream<Uint8Array>({
    pull: async (ctl) => {
      // Read until a whole event can be handed on (or the body ends): the SDK never sees a partial event.
      for (;;) {
        const { done, value } = await reader.read()
        if (done) {
          if (pendingSize) ctl.enqueue(concat(pending, pendingSize))
          pending = []
          return ctl.close()
        }
        onBytes()
        total += value.length
        if (total > maxTotal) return fail(ctl, responseTooLarge(maxTotal))
        let cut: number
        try {
          cut = splitter.lastBoundary(value, maxLine)
        } catch (err) {
          return fail(ctl, err as ProviderError)
        }
        if (cut < 0) {
          pending.push(value)
          pendingSize += value.length
          // Many short lines without a blank one: still one event the SDK would rescan whole.
          if (pendingSize > maxLine) return fail(ctl, lineTooLong(maxLine))
          continue
        }
        pending.push(value.subarray(0, cut))
        const out = concat(pending, pendingSize + cut)
        pending = cut < value.length ? [value.subarray(cut)] : []
        pendingSize = value.length - cut
        ctl.enqueue(out)
        if (endsWithDone(out)) {
          onDone?.()
          pending = []
          ctl.close()
          void reader.cancel().catch(() => undefined)
        }
        return
      }
    },
    cancel: (why) => reader.cancel(why)
  })
}
