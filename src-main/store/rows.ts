/**
 * Row types, derived once from the drizzle table definitions in `schema/` (`$inferSelect`): the only place a
 * state.db row is spelled, and it is spelled by the schema. Every home shape v21 → v30 reads through the same
 * names (older homes get the missing columns from the read shim's TEMP views, read-shim.ts), so one type
 * covers them all. Rows stay inside store/: repositories select into camelCase records (see
 * delegation-repo.ts, memory-events-repo.ts) whose field types come from these columns.
 */
import type {
  asyncDelegations,
  cadMemoryEvents,
  delegationChildUsage,
  gatewayHeartbeats,
  messages,
  sessionDailyUsage,
  sessionModelUsage,
  sessions
} from './schema'

export type SessionsRow = typeof sessions.$inferSelect
export type MessagesRow = typeof messages.$inferSelect
export type SessionModelUsageRow = typeof sessionModelUsage.$inferSelect
export type SessionDailyUsageRow = typeof sessionDailyUsage.$inferSelect
export type AsyncDelegationsRow = typeof asyncDelegations.$inferSelect
export type DelegationChildUsageRow = typeof delegationChildUsage.$inferSelect
export type MemoryEventsRow = typeof cadMemoryEvents.$inferSelect
export type GatewayHeartbeatsRow = typeof gatewayHeartbeats.$inferSelect
