/**
 * Per-turn session context (hermes-spec §4.5, seed 003) on AsyncLocalStorage: routing metadata
 * (`HERMES_SESSION_*`) and the async-delivery capability of the channel the turn came in on. Each turn
 * runs in its own context (`runOnChannel` → `runInFreshContext`), so concurrent turns never see each other's values;
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

const state = (): ContextState => als.getStore() ?? processContext

/** Bind every session var (unspecified ones to '', masking the env) and the capability. Not nestable. */
export function setSessionVars(vars: SessionVars = {}): void {
  const s = state()
  for (const [field, name] of Object.entries(SESSION_VAR_NAMES)) {
    // The cron marker keeps "unset" unless given (upstream `cron_session=_UNSET`).
    if (field === 'cronSession' && vars.cronSession === undefined) continue
    s.vars.set(name, vars[field as SessionVarField] ?? '')
  }
  s.asyncDelivery = vars.asyncDelivery === undefined ? true : Boolean(vars.asyncDelivery)
}

/** Context value if bound here (even ''), else the process env, else the default. */
export function getSessionEnv(name: string, fallback = ''): string {
  const s = state()
  if (s.vars.has(name)) return s.vars.get(name)!
  return process.env[name] ?? fallback
}

/**
 * One-shot runs, cron and bridges cannot receive a completion after their turn: bind ONLY the
 * capability: no session vars, so the env stays visible (upstream: no `_session_context_engaged` latch).
 */
export function declareStatelessChannel(): void {
  state().asyncDelivery = false
}

export function asyncDeliverySupported(): boolean {
  if (process.env.HERMES_KANBAN_TASK) return false
  const v = state().asyncDelivery
  return v === undefined ? true : v
}

/** Run fn in a fresh, isolated, unbound session context (a channel binds itself inside it). */
export function runInFreshContext<T>(fn: () => T): T {
  return als.run({ vars: new Map(), asyncDelivery: undefined }, fn)
}
