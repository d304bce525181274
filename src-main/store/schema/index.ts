/** Declared upstream schema: drizzle tables (typed queries + DDL source), indices and FTS objects. */
import { schemaVersion, sessions, stateMeta, systemPrompts } from './sessions'
import { messages } from './messages'
import { sessionDailyUsage, sessionModelUsage } from './usage'
import { asyncDelegations, delegationChildUsage } from './delegations'

export * from './sessions'
export * from './messages'
export * from './usage'
export * from './delegations'
export * from './caduceus'
export { pragmaTableInfo, sqliteMaster } from './sqlite'
export { INDEX_SQL } from './indices'
export {
  FTS_STORAGE_VERSION,
  FTS_TABLE_SQL,
  FTS_TOOL_CONTENT_PREFIX_CHARS,
  FTS_TRIGGER_SQL,
  FTS_VIEW_SQL,
  TRIGRAM_TABLE_SQL,
  TRIGRAM_TRIGGER_SQL,
  TRIGRAM_VIEW_SQL
} from './fts'

/** Every upstream table the store reconciles, in creation order. */
export const DECLARED_TABLES = [
  schemaVersion,
  systemPrompts,
  sessions,
  messages,
  sessionModelUsage,
  sessionDailyUsage,
  stateMeta,
  asyncDelegations,
  delegationChildUsage
] as const

export const SCHEMA_VERSION = 30
