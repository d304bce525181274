/** The `process` tool: poll, kill or list the background processes this session started. */
import type { ToolDefinition } from '../agent'
import type { ProcessRegistry } from './process-registry'
import type { ProcessSnapshot } from './process-types'
import { conversationIds, secretsOf, type TerminalToolDeps } from './terminal'

const errorJson = (message: string) => JSON.stringify({ error: message })

function view(
  registry: ProcessRegistry,
  p: ProcessSnapshot,
  secrets: string[],
  withOutput: boolean
): Record<string, unknown> {
  return {
    process_id: p.id,
    command: registry.redact(p.command, secrets),
    status: p.status,
    exit_code: p.exitCode,
    ...(p.signal ? { signal: p.signal } : {}),
    ...(withOutput ? { output: registry.redact(p.output, secrets), truncated: p.truncated } : {}),
    ...(p.error ? { error: registry.redact(p.error, secrets) } : {})
  }
}

export function createProcessTool(
  deps: { registry: ProcessRegistry } & Pick<TerminalToolDeps, 'conversationOf'>
): ToolDefinition {
  return {
    name: 'process',
    toolset: 'terminal',
    description:
      'Check on background processes started by `terminal` (background=true): poll one for status and recent output, kill one, or list them.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['poll', 'kill', 'list'] },
        process_id: { type: 'string', description: 'Required for poll and kill.' }
      },
      required: ['action']
    },
    execute(args, ctx) {
      const secrets = secretsOf(ctx)
      const action = args.action
      if (action === 'list') {
        // The conversation's processes, also those started before a compression (under an earlier segment's id).
        const ids = conversationIds(deps.conversationOf, ctx.sessionId)
        return JSON.stringify({
          processes: deps.registry
            .list({ profile: ctx.profile })
            .filter((p) => ids.has(p.sessionId))
            .map((p) => view(deps.registry, p, secrets, false))
        })
      }
      if (action !== 'poll' && action !== 'kill') return errorJson('action must be one of poll, kill, list')
      const id = args.process_id
      if (typeof id !== 'string' || !id) return errorJson('process_id is required')
      const p = deps.registry.poll(id)
      // Another profile's process is as good as unknown: ids must not be a way across profiles. Within a
      // profile any session may reach it (compression rotates the session id mid-task).
      if (!p || p.profile !== ctx.profile) return errorJson(`Unknown process: ${id}`)
      if (action === 'poll') return JSON.stringify(view(deps.registry, p, secrets, true))
      const killed = deps.registry.kill(id)
      // An ended shell whose leftovers were killed stays 'exited'; a running one is now 'killed'.
      return JSON.stringify({ process_id: id, killed, status: deps.registry.poll(id)?.status ?? p.status })
    }
  }
}
