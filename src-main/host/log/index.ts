// host/log/: the host's logger (files + console, redacted), one-line error descriptions, the last-resort handlers.
export { createLogger, redact } from './log'
export { describeError } from './describe-error'
export { installLastResort } from './last-resort'
