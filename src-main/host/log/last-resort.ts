import type { Logger } from '@shared/contract/log'
import { redact } from '../../secrets'
import { describeError } from './describe-error'

/**
 * Process-wide last resort for the host entry points (`caduceus serve`, the Electron main process): an error
 * nothing caught is logged — once per distinct message per minute, masked by the process's last resort (every live
 * host's secrets: an error thrown outside any request may carry any host's key), then by the logger — and the host
 * keeps serving. Every transport already answers its own failures; this is for the bug nobody foresaw.
 * Returns a function that removes the handlers.
 */
export function installLastResort(log: Logger): () => void {
  const seen = new Map<string, number>()
  const report = (kind: string) => (err: unknown) => {
    const text = redact(describeError(err))
    const now = Date.now()
    if ((seen.get(text) ?? 0) > now - 60_000) return
    if (seen.size > 500) seen.clear()
    seen.set(text, now)
    try {
      log.error('host', `${kind} (the host keeps running): ${text}`)
    } catch {
      // logging itself failed: nothing more we can do without risking a loop
    }
  }
  const onException = report('uncaught exception')
  const onRejection = report('unhandled rejection')
  process.on('uncaughtException', onException)
  process.on('unhandledRejection', onRejection)
  return () => {
    process.off('uncaughtException', onException)
    process.off('unhandledRejection', onRejection)
  }
}
