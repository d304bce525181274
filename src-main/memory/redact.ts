/**
 * Redaction before memory content leaves the process (prefetch queries, synced turns) or lands in the
 * activity log: the one redactor config/ keeps for every log line.
 */
export { redact as redactSecrets } from '../secrets'
