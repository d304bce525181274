/**
 * Memory provider tools as agent tool definitions. The calling turn's gateway session key travels from
 * the tool context into the provider's kwargs (`callerGsk`); the caller-scope guard runs inside the manager.
 *
 * The shapes mirror agent/tools/registry's ToolDefinition/ToolContext structurally: memory sits below
 * agent in the layer table, so it must not import it.
 */
import type { MemoryManager } from './manager'

export interface MemoryToolContext {
  sessionId: string
  turnId: string
  gatewaySessionKey: string
}

export interface MemoryToolDefinition {
  name: string
  description: string
  parameters: Record<string, unknown>
  toolset?: string
  execute(args: Record<string, unknown>, ctx: MemoryToolContext): Promise<string>
}

export function memoryToolDefinitions(manager: MemoryManager): MemoryToolDefinition[] {
  return manager.getToolSchemas().map((schema) => ({
    name: schema.name,
    description: schema.description,
    parameters: schema.parameters,
    toolset: 'memory',
    execute: (args, ctx) =>
      manager.handleToolCall(schema.name, args, {
        callerGsk: ctx.gatewaySessionKey,
        sessionId: ctx.sessionId,
        turnId: ctx.turnId
      })
  }))
}
