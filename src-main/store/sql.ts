/** SQL fragments for lineage markers. CASE guards json_extract: malformed upstream JSON must not abort a query. */
export const marker = (alias: string, key: '_branched_from' | '_delegate_from' | '_reset_from') =>
  `(CASE WHEN json_valid(${alias}.model_config) THEN json_extract(${alias}.model_config, '$.${key}') END)`

export const isDelegateSql = (a: string) =>
  `(${a}.source IN ('delegate', 'subagent') OR ${marker(a, '_delegate_from')} IS NOT NULL)`
export const isBranchSql = (a: string) => `(${marker(a, '_branched_from')} IS NOT NULL)`
export const noForkMarkersSql = (a: string) =>
  `(${marker(a, '_branched_from')} IS NULL AND ${marker(a, '_delegate_from')} IS NULL AND ${marker(a, '_reset_from')} IS NULL)`

/** A legacy /branch: no marker, but its parent ended 'branched' before it started (upstream's heuristic). */
const legacyBranchSql = (a: string) => `EXISTS (SELECT 1 FROM sessions p WHERE p.id = ${a}.parent_session_id
  AND p.end_reason = 'branched' AND ${a}.started_at >= p.ended_at)`

/**
 * A session the list shows as a conversation of its own, as upstream's list does: a root that is not a subagent
 * run (a run detached from a pruned parent keeps its marker and stays out), or a /branch (marked or legacy). Other
 * children — subagent runs, a `tool` session's, unmarked ones — stay out, as upstream leaves them out; Caduceus
 * adds a reset's new conversation (`_reset_from`), which is a conversation of its own. A compression continuation
 * is shown through its chain's root (continuationSql).
 */
export const listableSql = (a: string) => `(CASE WHEN ${a}.parent_session_id IS NULL
  THEN ${marker(a, '_delegate_from')} IS NULL
  ELSE NOT ${isDelegateSql(a)} AND (${isBranchSql(a)} OR ${marker(a, '_reset_from')} IS NOT NULL OR ${legacyBranchSql(a)}) END)`

/**
 * A compression continuation as lineage.ts kindOf reads it: a child of a 'compression'-ended parent, without fork
 * markers, neither a `tool` session nor a delegate-sourced one.
 */
export const continuationSql = (a: string) => `(${a}.parent_session_id IS NOT NULL
  AND ${a}.source NOT IN ('tool', 'delegate', 'subagent') AND ${noForkMarkersSql(a)} AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = ${a}.parent_session_id
    AND p.end_reason = 'compression'))`

/**
 * Children lookups name their index: after ANALYZE, sqlite_stat1 sees parent_session_id as one value
 * (NULL on most rows) and the planner would rather scan the whole table per row. Reconcile guarantees it.
 */
export const CHILDREN = 'sessions c INDEXED BY idx_sessions_parent'

/**
 * A compression-ended row whose continuation exists is superseded by it in lists (projected to the tip). `IS`, not
 * `=`: a live row's NULL end reason would make the whole test NULL, and `NOT NULL` hid a live parent that had a child.
 */
export const supersededSql = (a: string) => `(${a}.end_reason IS 'compression' AND EXISTS (
  SELECT 1 FROM ${CHILDREN} WHERE c.parent_session_id = ${a}.id AND c.source <> 'tool' AND ${noForkMarkersSql('c')}))`

export const ACTIVITY = 'COALESCE(s.last_activity_at, s.started_at)'
