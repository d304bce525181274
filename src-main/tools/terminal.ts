/**
 * The `terminal` tool: run a shell command in the foreground (bounded output, timeout, abort) or in the
 * background via the ProcessRegistry. The notify gate follows hermes-spec §4.5: a session that cannot
 * receive anything after its turn ends (API server, one-shot, cron) gets `notify_on_complete: false` and
 * a `notify_unsupported` note pointing at polling, and no watcher is registered.
 */
import type { ToolContext, ToolDefinition } from '../agent'
import { asyncDeliverySupported, getSessionEnv, SESSION_VAR_NAMES } from '../gateway'
import {
  boolArg,
  commandArg,
  cwdArg,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  timeoutArg,
  ToolArgError
} from './args'
import { runForeground } from './foreground'
import type { ProcessRegistry } from './process-registry'
import type { PendingWatcher } from './process-types'

export interface TerminalToolDeps {
  registry: ProcessRegistry
  /** Default working directory: `terminal.cwd` from config, else the profile home. */
  cwd: string
  /** Every segment of the conversation `sessionId` belongs to (compression rotates the id mid-task). Default: itself. */
  conversationOf?: (sessionId: string) => string[]
}

/** The session ids a session's processes may carry: those of its whole conversation, never fewer than itself. */
export function conversationIds(conversationOf: ((sessionId: string) => string[]) | undefined, sessionId: string) {
  const ids = new Set([sessionId])
  try {
    for (const id of conversationOf?.(sessionId) ?? []) ids.add(id)
  } catch {
    // unreadable for a moment: the session's own processes still count
  }
  return ids
}

const DESCRIPTION =
  "Run a shell command on the user's machine and return its exit code and output. " +
  `Foreground commands time out after \`timeout\` seconds (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS}). ` +
  'Set background=true for long-running commands: you get a process_id to check with the `process` tool; ' +
  'with notify_on_complete=true you are told when it finishes (when this session supports it).'

export const secretsOf = (ctx: ToolContext): string[] => {
  const key = ctx.agent?.runtime.apiKey
  return typeof key === 'string' && key ? [key] : []
}

const errorJson = (message: string) => JSON.stringify({ error: message })

export function unsupportedNote(platform: string): string {
  const where = platform ? `the ${platform} channel has no async delivery` : 'this channel has no async delivery'
  return `This session cannot receive a completion notice after the turn ends (${where}); poll with the \`process\` tool (action "poll") instead.`
}

/** Routing for a platform watcher, or null when no platform is bound (CLI-like: the completion callback alone delivers). */
function watcherFor(ctx: ToolContext): Omit<PendingWatcher, 'processId'> | null {
  const platform = getSessionEnv(SESSION_VAR_NAMES.platform)
  if (!platform) return null
  return {
    platform,
    sessionId: ctx.sessionId,
    sessionKey: getSessionEnv(SESSION_VAR_NAMES.sessionKey) || ctx.gatewaySessionKey,
    chatId: getSessionEnv(SESSION_VAR_NAMES.chatId),
    threadId: getSessionEnv(SESSION_VAR_NAMES.threadId),
    userId: getSessionEnv(SESSION_VAR_NAMES.userId),
    profile: ctx.profile
  }
}

export function createTerminalTool(deps: TerminalToolDeps): ToolDefinition {
  return {
    name: 'terminal',
    toolset: 'terminal',
    description: DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'Shell command to run.' },
        background: { type: 'boolean', description: 'Start it in the background and return a process_id at once.' },
        notify_on_complete: {
          type: 'boolean',
          description: 'Background only: deliver a notice when the process exits.'
        },
        timeout: {
          type: 'number',
          description: `Foreground timeout in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS}).`
        },
        cwd: { type: 'string', description: 'Working directory (relative paths resolve against the default).' }
      },
      required: ['command']
    },
    // Agent.close: processes started before a compression carry an earlier segment's id and are killed too.
    cleanupTask: (taskId) => {
      for (const id of conversationIds(deps.conversationOf, taskId)) deps.registry.killAllForSession(id)
    },
    async execute(args, ctx) {
      try {
        const command = commandArg(args.command)
        const cwd = cwdArg(args.cwd, deps.cwd)
        const secrets = secretsOf(ctx)
        if (boolArg(args.background, 'background')) {
          return startBackground(
            deps.registry,
            command,
            cwd,
            boolArg(args.notify_on_complete, 'notify_on_complete'),
            ctx,
            secrets
          )
        }
        const r = await runForeground(command, { cwd, timeoutMs: timeoutArg(args.timeout), signal: ctx.signal })
        const out: Record<string, unknown> = {
          exit_code: r.exitCode,
          output: deps.registry.redact(r.output, secrets),
          truncated: r.truncated
        }
        if (r.timedOut) out.error = `Command timed out after ${timeoutArg(args.timeout) / 1000} s and was killed`
        if (r.aborted) out.error = 'Command interrupted: the turn was stopped'
        if (r.spawnError) out.error = `Could not start the command: ${deps.registry.redact(r.spawnError, secrets)}`
        return JSON.stringify(out)
      } catch (err) {
        if (err instanceof ToolArgError) return errorJson(err.message)
        throw err
      }
    }
  }
}

function startBackground(
  registry: ProcessRegistry,
  command: string,
  cwd: string,
  wantNotify: boolean,
  ctx: ToolContext,
  secrets: string[]
): string {
  const supported = asyncDeliverySupported()
  const notify = wantNotify && supported
  const proc = registry.start({
    command,
    cwd,
    profile: ctx.profile,
    sessionId: ctx.sessionId,
    notify,
    secrets,
    watcher: notify ? watcherFor(ctx) : null
  })
  const out: Record<string, unknown> = { process_id: proc.id, status: 'running', notify_on_complete: notify }
  if (wantNotify && !supported) out.notify_unsupported = unsupportedNote(getSessionEnv(SESSION_VAR_NAMES.platform))
  return JSON.stringify(out)
}
