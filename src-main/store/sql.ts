/** SQL fragments for lineage markers. CASE guards json_extract: malformed upstream JSON must not abort a query. */
export const marker = (alias: string, key: '_branched_from' | '_delegate_from' | '_reset_from') =>
  `(CASE WHEN json_valid(${alias}.model_config) THEN json_extract(${alias}.model_config, '$.${key}') END)`

export const isDelegateSql = (a: string) =>
  `(${a}.source IN ('delegate', 'subagent') OR ${marker(a, '_delegate_from')} IS NOT NULL)`
export const isBranchSql = (a: string) => `(${marker(a, '_branched_from')} IS NOT NULL)`
export const noForkMarkersSql = (a: string) =>
  `(${marker(a, '_branched_from')} IS NULL AND ${marker(a, '_delegate_from')} IS NULL AND ${marker(a, '_reset_from')} IS NULL)`

/**
 * Children lookups name their index: after ANALYZE, sqlite_stat1 sees parent_session_id as one value
 * (NULL on most rows) and the planner would rather scan the whole table per row. Reconcile guarantees it.
 */
export const CHILDREN = 'sessions c INDEXED BY idx_sessions_parent'

/** A compression-ended row whose continuation exists is superseded by it in lists (projected to the tip). */
export const supersededSql = (a: string) => `(${a}.end_reason = 'compression' AND EXISTS (
  SELECT 1 FROM ${CHILDREN} WHERE c.parent_session_id = ${a}.id AND c.source <> 'tool' AND ${noForkMarkersSql('c')}))`

export const ACTIVITY = 'COALESCE(s.last_activity_at, s.started_at)'
