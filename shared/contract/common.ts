import { z } from 'zod'

/** Profile name: `default` or a named profile under `<root>/profiles/<name>`. */
export const ProfileName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'profile name must match [a-z0-9][a-z0-9_-]{0,63}')
export type ProfileName = z.infer<typeof ProfileName>

/** A profile selector for cross-profile views. */
export const ProfileScope = z.union([z.literal('all'), ProfileName])
export type ProfileScope = z.infer<typeof ProfileScope>

/** A profile a cross-profile view could not serve (e.g. a corrupt state.db), with the reason. */
export const ProfileProblem = z.object({ profile: ProfileName, reason: z.string() })
export type ProfileProblem = z.infer<typeof ProfileProblem>

/**
 * A profile's config.yaml that cannot be used (not valid YAML, not a mapping, unreadable): the file, the line when
 * the parser names one, and why. Read views show it in place of settings they would otherwise make up.
 */
export const ConfigProblem = z.object({ path: z.string(), line: z.number().int().optional(), message: z.string() })
export type ConfigProblem = z.infer<typeof ConfigProblem>

export const SessionId = z.string().trim().min(1, 'session id is required').max(512)
export type SessionId = z.infer<typeof SessionId>

/**
 * Money is never silently $0: `usd` is null when nothing is priced, and `status` says how far to trust it.
 * `complete` is true only when every part of the total is priced.
 */
export const CostStatus = z.enum(['billed', 'estimated', 'partial', 'unpriced', 'none'])
export type CostStatus = z.infer<typeof CostStatus>
export const Money = z.object({ usd: z.number().nullable(), status: CostStatus, complete: z.boolean() })
export type Money = z.infer<typeof Money>

export const Tokens = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  reasoning: z.number()
})
export type Tokens = z.infer<typeof Tokens>

/** Typed error every request can fail with; `field` names the offending input path. */
export const ErrorCode = z.enum([
  'invalid_input',
  'not_found',
  'conflict',
  'refused',
  'unauthorized',
  'unknown_request',
  'unavailable',
  'internal'
])
export type ErrorCode = z.infer<typeof ErrorCode>
export const ContractError = z.object({ code: ErrorCode, message: z.string(), field: z.string().optional() })
export type ContractError = z.infer<typeof ContractError>

/** Thrown by host handlers (and rethrown by clients) to carry a ContractError. */
export class CaduceusError extends Error {
  readonly code: ErrorCode
  readonly field?: string
  constructor(code: ErrorCode, message: string, field?: string) {
    super(message)
    this.name = 'CaduceusError'
    this.code = code
    this.field = field
  }
  toJSON(): ContractError {
    return this.field
      ? { code: this.code, message: this.message, field: this.field }
      : { code: this.code, message: this.message }
  }
}
