/**
 * Redaction before memory content leaves the process (prefetch queries, synced turns) or lands in the activity log or
 * a log line: with the host's secret mask, handed in beside its log sink, so a host masks its own secrets.
 */
import { redact, type SecretMask } from '../secrets'

export type MemoryRedactor = Pick<SecretMask, 'redact'>

/** Memory built without a host (a bare script, a test): the process's last resort — every live host's secrets. */
export const LAST_RESORT: MemoryRedactor = { redact }
