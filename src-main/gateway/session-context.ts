/**
 * Per-turn session context (hermes-spec §4.5, seed 003) on AsyncLocalStorage: routing metadata
 * (`HERMES_SESSION_*`) and the async-delivery capability of the channel the turn came in on. Each turn
 * runs in its own context (`runWithSessionContext`), so concurrent turns never see each other's values;
 * outside any turn the calls act on one process-level context, like Python's main-thread contextvars.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

export const SESSION_VAR_NAMES = {
  platform: 'HERMES_SESSION_PLATFORM',
  source: 'HERMES_SESSION_SOURCE',
  chatId: 'HERMES_SESSION_CHAT_ID',
  chatType: 'HERMES_SESSION_CHAT_TYPE',
  chatName: 'HERMES_SESSION_CHAT_NAME',
  threadId: 'HERMES_SESSION_THREAD_ID',
  userId: 'HERMES_SESSION_USER_ID',
  userIdAlt: 'HERMES_SESSION_USER_ID_ALT',
  userName: 'HERMES_SESSION_USER_NAME',
  scopeId: 'HERMES_SESSION_SCOPE_ID',
  sessionKey: 'HERMES_SESSION_KEY',
  sessionId: 'HERMES_SESSION_ID',
  uiSessionId: 'HERMES_UI_SESSION_ID',
  messageId: 'HERMES_SESSION_MESSAGE_ID',
  profile: 'HERMES_SESSION_PROFILE',
  browserControlPrincipal: 'HERMES_BROWSER_CONTROL_PRINCIPAL',
  browserControlTransportFamily: 'HERMES_BROWSER_CONTROL_TRANSPORT_FAMILY',
  cronSession: 'HERMES_CRON_SESSION',
  parentChatId: 'HERMES_SESSION_PARENT_CHAT_ID',
  cwd: 'HERMES_SESSION_CWD'
} as const

type SessionVarField = keyof typeof SESSION_VAR_NAMES
export type SessionVars = Partial<Record<SessionVarField, string>> & {
  /** Whether this channel can receive a completion after the turn ends (default true). */
  asyncDelivery?: boolean
}

interface ContextState {
  /** Absent = never bound here (fall back to process.env); '' = explicitly cleared (masks the env). */
  vars: Map<string, string>
  asyncDelivery: boolean | undefined
}

const als = new AsyncLocalStorage<ContextState>()
const processContext: ContextState = { vars: new Map(), asyncDelivery: undefined }
/** Latched by setSessionVars: from then on the context, not the env, is authoritative for session vars. */
let engaged = false

const state = (): ContextState => als.getStore() ?? processContext

/** Opaque proof of a binding, returned by setSessionVars and handed back to clearSessionVars. */
export interface SessionTokens {
  readonly names: readonly string[]
}

/** Bind every session var (unspecified ones to ''), the capability, and latch the engaged flag. Not nestable. */
export function setSessionVars(vars: SessionVars = {}): SessionTokens {
  const s = state()
  for (const [field, name] of Object.entries(SESSION_VAR_NAMES)) {
    // The cron marker keeps "unset" unless given (upstream `cron_session=_UNSET`).
    if (field === 'cronSession' && vars.cronSession === undefined) continue
    s.vars.set(name, vars[field as SessionVarField] ?? '')
  }
  s.asyncDelivery = vars.asyncDelivery === undefined ? true : Boolean(vars.asyncDelivery)
  engaged = true
  return { names: [...s.vars.keys()] }
}

/** Every session var explicitly '' (masking the env); the capability back to unset (= supported). */
export function clearSessionVars(_tokens?: SessionTokens): void {
  const s = state()
  for (const name of Object.values(SESSION_VAR_NAMES)) s.vars.set(name, '')
  s.asyncDelivery = undefined
}

/** Every var back to "never bound here"; the capability unset. */
export function resetSessionVars(): void {
  const s = state()
  s.vars.clear()
  s.asyncDelivery = undefined
}

/** Context value if bound here (even ''), else the process env, else the default. */
export function getSessionEnv(name: string, fallback = ''): string {
  const s = state()
  if (s.vars.has(name)) return s.vars.get(name)!
  return process.env[name] ?? fallback
}

/**
 * One-shot runs, cron and bridges cannot receive a completion after their turn: bind ONLY the
 * capability. Does not latch `engaged` — a single-process one-shot must not flip the env bridge.
 */
export function declareStatelessChannel(): void {
  state().asyncDelivery = false
}

export function asyncDeliverySupported(): boolean {
  if (process.env.HERMES_KANBAN_TASK) return false
  const v = state().asyncDelivery
  return v === undefined ? true : v
}

export function isSessionContextEngaged(): boolean {
  return engaged
}

/** Run fn in a fresh, isolated, unbound session context (a channel binds itself inside it). */
export function runInFreshContext<T>(fn: () => T): T {
  return als.run({ vars: new Map(), asyncDelivery: undefined }, fn)
}

/** Run fn in a fresh, isolated session context bound to `vars` (the turn runner's entry point). */
export function runWithSessionContext<T>(vars: SessionVars, fn: () => T): T {
  return als.run({ vars: new Map(), asyncDelivery: undefined }, () => {
    setSessionVars(vars)
    return fn()
  })
}
