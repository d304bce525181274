/**
 * Limits on one provider call, enforced below the SDK at the byte level (a `fetch` wrapper), so they hold for
 * every provider and every SDK alike:
 *  - inactivity: no byte (headers or body) for `inactivityMs` aborts the call — "the provider sent nothing for N s";
 *  - total: the whole call, retries included, is capped at `totalMs`;
 *  - retries: 408/409/429, every 5xx (Anthropic's 529 "overloaded", Cloudflare's 520–524) and connection failures
 *    before any reply are retried with exponential backoff; a provider's `x-should-retry: true|false` overrides
 *    the status. `Retry-After`/`retry-after-ms` is honoured up to `maxRetryWaitMs` (a longer wait is not
 *    retried: the provider's answer goes back to the caller as it is).
 *  - size: the body is cut at `maxResponseBytes` and at a line/event longer than `maxLineBytes`, and re-cut at
 *    event boundaries so the SDK's decoder stays linear (bounded-body.ts).
 *  - a stream cut before any text is asked for again by the turn loop (stream-retry.ts), its waits growing from
 *    `streamRetryWaitMs` (upstream: 2 s).
 * The reply-size cap is applied where text is assembled (model-call.ts), so what is kept is well-formed; tool-call
 * arguments have their own cap (`maxToolArgsChars`, never above `maxReplyChars`) where they are assembled.
 */
import { boundedBody } from './bounded-body'
import { retryAfterMs } from './retry-after'
import { ProviderError, type RuntimeConfig } from './types'

export interface CallLimits {
  inactivityMs: number
  totalMs: number
  maxReplyChars: number
  maxRetries: number
  maxRetryWaitMs: number
  maxResponseBytes: number
  maxLineBytes: number
  maxToolArgsChars: number
  /** The first wait between rounds of asking again for a stream cut before any text (stream-retry.ts). */
  streamRetryWaitMs: number
}

export const DEFAULT_CALL_LIMITS: CallLimits = {
  inactivityMs: 120_000,
  totalMs: 15 * 60_000,
  maxReplyChars: 1_000_000,
  maxRetries: 2,
  maxRetryWaitMs: 30_000,
  maxResponseBytes: 16 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
  maxToolArgsChars: 1_000_000,
  streamRetryWaitMs: 2000
}

export function resolveCallLimits(partial?: Partial<CallLimits> | null): CallLimits {
  const out = { ...DEFAULT_CALL_LIMITS }
  for (const k of Object.keys(out) as Array<keyof CallLimits>) {
    const v = partial?.[k]
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[k] = v
  }
  // A call's arguments are stored and re-sent like a reply: never more than a reply may be.
  if (out.maxReplyChars > 0 && (out.maxToolArgsChars <= 0 || out.maxToolArgsChars > out.maxReplyChars))
    out.maxToolArgsChars = out.maxReplyChars
  return out
}

/** The limits a runtime's calls run under: its `limits`, with its own `maxRetries` (when set) over theirs. */
export function runtimeCallLimits(runtime: Pick<RuntimeConfig, 'limits' | 'maxRetries'>): CallLimits {
  return resolveCallLimits({
    ...runtime.limits,
    ...(runtime.maxRetries !== undefined ? { maxRetries: runtime.maxRetries } : {})
  })
}

/**
 * One provider call under its own watch: the SDK is made for it (its `fetch` is the watch's: inactivity, total cap,
 * retries with Retry-After), `stream` reads the reply, and the watch ends however the stream does.
 */
export async function* watchedCall<S, T>(
  limits: CallLimits,
  signal: AbortSignal | undefined,
  sdkFor: (watch: CallWatch) => Promise<S>,
  stream: (sdk: S, watch: CallWatch) => AsyncIterable<T>
): AsyncGenerator<T> {
  const watch = new CallWatch(limits, signal)
  try {
    yield* stream(await sdkFor(watch), watch)
  } finally {
    watch.done()
  }
}

/** Whether a reply is worth another attempt: the provider's explicit word first, else its status. */
function retryable(res: Response): boolean {
  const said = res.headers.get('x-should-retry')?.trim().toLowerCase()
  if (said === 'true') return true
  if (said === 'false') return false
  return res.status >= 500 || res.status === 408 || res.status === 409 || res.status === 429
}
const seconds = (ms: number) => (ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(1))

/**
 * One call's watch: hand `fetch` to the SDK and `signal` to the request. When a limit trips, `reason` says which
 * (the SDK only sees an abort).
 */
export class CallWatch {
  readonly signal: AbortSignal
  reason: ProviderError | null = null
  /** The body ended with the OpenAI-style `[DONE]` event: the server said the reply is complete. */
  sawDone = false
  private readonly controller = new AbortController()
  private idleTimer: ReturnType<typeof setTimeout> | null = null
  private readonly totalTimer: ReturnType<typeof setTimeout> | null
  private readonly onOuterAbort: () => void
  private finished = false

  constructor(
    readonly limits: CallLimits,
    private readonly outer?: AbortSignal,
    private readonly baseFetch: typeof fetch = fetch
  ) {
    this.signal = this.controller.signal
    this.onOuterAbort = () => this.controller.abort(outer?.reason)
    if (outer?.aborted) this.controller.abort(outer.reason)
    else outer?.addEventListener('abort', this.onOuterAbort, { once: true })
    this.totalTimer =
      limits.totalMs > 0
        ? setTimeout(
            () =>
              this.trip(
                new ProviderError(
                  'timeout',
                  `the provider call took longer than ${seconds(limits.totalMs)} s and was stopped`
                )
              ),
            limits.totalMs
          )
        : null
    this.touch()
  }

  /** Bytes arrived: the inactivity clock starts again. */
  touch(): void {
    if (this.finished || this.limits.inactivityMs <= 0) return
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(
      () =>
        this.trip(new ProviderError('timeout', `the provider sent nothing for ${seconds(this.limits.inactivityMs)} s`)),
      this.limits.inactivityMs
    )
  }

  /** Stop the clocks (the call ended, one way or another). */
  done(): void {
    this.finished = true
    if (this.idleTimer) clearTimeout(this.idleTimer)
    if (this.totalTimer) clearTimeout(this.totalTimer)
    this.outer?.removeEventListener('abort', this.onOuterAbort)
  }

  private trip(reason: ProviderError): void {
    if (this.finished || this.controller.signal.aborted) return
    this.reason = reason
    this.controller.abort(reason)
  }

  /** The `fetch` the SDK calls: retries, then a body that resets the inactivity clock on every chunk. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      // The SDK's own signal (its timeout) and ours both end the request.
      const signal = init?.signal ? AbortSignal.any([init.signal, this.signal]) : this.signal
      let res: Response
      try {
        this.touch()
        res = await this.baseFetch(input, { ...init, signal })
      } catch (err) {
        if (this.signal.aborted || init?.signal?.aborted || attempt >= this.limits.maxRetries) throw err
        await this.sleep(this.backoff(attempt, null), signal)
        continue
      }
      this.touch()
      if (!res.ok && retryable(res) && attempt < this.limits.maxRetries) {
        const asked = retryAfterMs(res.headers)
        if (asked === null || asked <= this.limits.maxRetryWaitMs) {
          await res.body?.cancel().catch(() => undefined)
          await this.sleep(this.backoff(attempt, asked), signal)
          continue
        }
      }
      return this.watchBody(res)
    }
  }

  private backoff(attempt: number, asked: number | null): number {
    if (asked !== null) return Math.min(asked, this.limits.maxRetryWaitMs)
    const base = Math.min(this.limits.maxRetryWaitMs, 500 * 2 ** attempt)
    return base * (0.75 + Math.random() * 0.5)
  }

  /**
   * Waiting on purpose is not silence: the inactivity clock pauses, the total cap does not. Any abort of the attempt
   * (Stop, a limit, the SDK's own timeout) ends the wait at once, also one that fired before the wait began (while
   * the refused reply's body was being cancelled): an abort event never fires twice, so that one is checked first.
   */
  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      const onAbort = () => {
        clearTimeout(t)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  private watchBody(res: Response): Response {
    if (!res.body) return res
    const body = boundedBody(
      res.body,
      this.limits,
      () => this.touch(),
      (err) => this.trip(err),
      () => (this.sawDone = true)
    )
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
  }
}
