/**
 * A fragment built once per table alias (aliases are the code's own, a handful): the list's filters are put together
 * on every request, and building these nested templates again each time was ~10 µs of a page.
 */
function perAlias(build: (a: string) => string): (a: string) => string {
  const built = new Map<string, string>()
  return (a) => {
    let sql = built.get(a)
    if (sql === undefined) built.set(a, (sql = build(a)))
    return sql
  }
}

/**
 * SQL fragments for lineage markers. CASE guards json_extract: malformed upstream JSON must not abort a query. The
 * key's name is looked for first (instr: a scan, no parse), so the list and search filters, which read markers on
 * every session, parse only the rows that carry one (a writer that escaped a key's letters would go unseen; none does).
 * Valid as JSON5 (flag 2): upstream's json.dumps writes an unlimited budget as a bare `Infinity`, which RFC JSON lacks.
 */
export const marker = (alias: string, key: '_branched_from' | '_delegate_from' | '_reset_from') =>
  `(CASE WHEN instr(${alias}.model_config, '"${key}"') AND json_valid(${alias}.model_config, 2)
    THEN json_extract(${alias}.model_config, '$.${key}') END)`

/**
 * A child that is a subagent run, as lineage.ts kindOf reads it: the marker, or a delegate source on a child that
 * is no /branch, reset or compression continuation (upstream follows a chain through whatever source but `tool`).
 */
export const isDelegateSql = (a: string) => `(${marker(a, '_delegate_from')} IS NOT NULL
  OR (${a}.source IN ('delegate', 'subagent') AND ${marker(a, '_branched_from')} IS NULL
    AND ${marker(a, '_reset_from')} IS NULL AND NOT ${compressedParentSql(a)}))`

/** `a`'s parent ended 'compression' (so `a`, unmarked and no `tool` session, continues it). */
const compressedParentSql = (a: string) =>
  `EXISTS (SELECT 1 FROM sessions p WHERE p.id = ${a}.parent_session_id AND p.end_reason = 'compression')`
const isBranchSql = (a: string) => `(${marker(a, '_branched_from')} IS NOT NULL)`
export const noForkMarkersSql = (a: string) =>
  `(${marker(a, '_branched_from')} IS NULL AND ${marker(a, '_delegate_from')} IS NULL AND ${marker(a, '_reset_from')} IS NULL)`

/** A legacy /branch: no marker, but its parent ended 'branched' before it started (upstream's heuristic). */
const legacyBranchSql = (a: string) => `EXISTS (SELECT 1 FROM sessions p WHERE p.id = ${a}.parent_session_id
  AND p.end_reason = 'branched' AND ${a}.started_at >= p.ended_at)`

/** A /branch child, marked or legacy (a child: a root with the marker alone is a root). */
export const anyBranchSql = (a: string) => `(${isBranchSql(a)} OR ${legacyBranchSql(a)})`

/**
 * A session the list shows as a conversation of its own, as upstream's list does: a root that is not a subagent
 * run (a run detached from a pruned parent keeps its marker and stays out), or a /branch (marked or legacy) that is
 * not one. Other children — subagent runs, a `tool` session's, unmarked ones — stay out, as upstream leaves them
 * out; Caduceus adds a reset's new conversation (`_reset_from`), which is a conversation of its own. A compression
 * continuation is shown when its chain's root is (shownSql).
 */
const listableSql = (a: string) => `(${marker(a, '_delegate_from')} IS NULL
  AND (${a}.parent_session_id IS NULL OR ${anyBranchSql(a)} OR ${marker(a, '_reset_from')} IS NOT NULL))`

/**
 * A compression continuation, by upstream's chain edge (list_sessions_rich, get_compression_chain) and lineage.ts
 * kindOf: a child of a 'compression'-ended parent, without fork markers, not a `tool` session.
 */
const continuationSql = (a: string) => `(${a}.parent_session_id IS NOT NULL AND COALESCE(${a}.source, '') <> 'tool'
  AND ${noForkMarkersSql(a)} AND ${compressedParentSql(a)})`

/**
 * Which child continues a compression-ended parent when more than one could, as upstream's get_compression_tip
 * picks it (a gateway racing its compressor writes the real continuation before the parent's end, and a stale
 * socket may add a sibling after it, which the reaper ends): one itself ended by compression, else a live one, else
 * the rest; then the latest message (else the start), the start, the id. `k` is the candidate row; lineage.ts
 * forwardFrom walks by the same order.
 */
export const continuationOrderSql = (k: string) => `CASE WHEN ${k}.end_reason = 'compression' THEN 0
    WHEN ${k}.ended_at IS NULL THEN 1 ELSE 2 END,
  COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = ${k}.id), ${k}.started_at) DESC,
  ${k}.started_at DESC, ${k}.id DESC`

/**
 * `c` (a continuation) is the child its parent's chain goes on through (continuationOrderSql), not a passed-over
 * sibling. An only candidate is chosen without ranking (nearly every step: ranking reads each sibling's last message).
 */
const chosenContinuationSql = (c: string) => `(NOT EXISTS (SELECT 1 FROM sessions k INDEXED BY idx_sessions_parent
    WHERE k.parent_session_id = ${c}.parent_session_id AND k.id <> ${c}.id AND COALESCE(k.source, '') <> 'tool'
      AND ${noForkMarkersSql('k')})
  OR ${c}.id IS (SELECT k.id FROM sessions k INDEXED BY idx_sessions_parent
    WHERE k.parent_session_id = ${c}.parent_session_id AND COALESCE(k.source, '') <> 'tool' AND ${noForkMarkersSql('k')}
    ORDER BY ${continuationOrderSql('k')} LIMIT 1))`

/** How far a chain walk goes up (lineage.ts walks as far): a walk that reaches it met a loop or a very long chain. */
/**
 * `expr` without the whitespace around it (space, tab, LF, CR) — how the API server compares a client's turns with the
 * stored ones, and how upstream writes the text of the copies a compression carries.
 */
export const trimmedSql = (expr: string) => `trim(${expr}, ' ' || char(9, 10, 13))`

export const CHAIN_STEPS = 1000

/**
 * The walk up `a`'s compression chain as rows `up(id, n)`: `a` itself at n = 0, then each parent its row continues
 * (continuationSql), through chosen continuations only when `chosen` (chosenContinuationSql); a step that is no
 * continuation yields a NULL id and ends it. Capped, so a loop ends. Each step is a scalar lookup by id: as a join,
 * the planner would range-scan the parent index for `parent_session_id IS NOT NULL` instead.
 */
const chainWalkSql = (a: string, chosen: boolean) => `WITH RECURSIVE up(id, n) AS (SELECT ${a}.id, 0
    UNION ALL SELECT (SELECT c.parent_session_id FROM sessions c WHERE c.id = up.id AND ${continuationSql('c')}
        ${chosen ? `AND ${chosenContinuationSql('c')}` : ''}), up.n + 1
      FROM up WHERE up.id IS NOT NULL AND up.n < ${CHAIN_STEPS})`

/**
 * The first session of `a`'s compression chain (`a` itself when it continues none). The walk goes up only through
 * chosen continuations: a sibling the chain passed over, or anything continuing one, stops it short of the root, so
 * it is not listed as a second copy of the conversation (upstream lists one entry per chain, at its tip).
 */
const chainRootSql = (a: string) => `(${chainWalkSql(a, true)}
  SELECT id FROM up WHERE id IS NOT NULL ORDER BY n DESC LIMIT 1)`

/**
 * `a`'s compression ancestry as the list's filter walks it (chainRootSql: up through chosen continuations only, so
 * a passed-over sibling is the first session of its own chain, as lineage.ts pathFromRoot with `chosen` walks it),
 * as one text, "[+]<steps> <root id>" (steps: 0 when `a` continues nothing; CHAIN_STEPS when the walk was cut short,
 * which only pathFromRoot's loop check can settle; `+` when `a` is a continuation, so 0 steps then means its parent's
 * chain passed it over). The list reads a page's chains with it, in its one statement.
 */
export const chainPathSql = perAlias(
  (a) => `(${chainWalkSql(a, true)}
  SELECT CASE WHEN ${continuationSql(a)} THEN '+' ELSE '' END || n || ' ' || id FROM up WHERE id IS NOT NULL
  ORDER BY n DESC LIMIT 1)`
)

/** Which archived flags a filter admits: not archived, archived, either. */
export type ArchivedFilter = 'exclude' | 'only' | 'include'
const flagSql = (a: string, f: ArchivedFilter) =>
  f === 'exclude' ? `COALESCE(${a}.archived, 0) = 0` : f === 'only' ? `${a}.archived = 1` : '1'

/**
 * The first session of `a`'s chain passes `test` (on alias `r`): a compression continuation is judged by its chain's
 * root — upstream's list filters the root and shows the chain at its tip, so the root's archived flag is the whole
 * conversation's (an older upstream archived only the shown tip, which its list still shows, unarchived) — and any
 * other row by itself (`self`, the same test on `a`).
 */
const byChainRoot = (a: string, test: string, self: string) => `(CASE WHEN ${continuationSql(a)}
  THEN EXISTS (SELECT 1 FROM sessions r WHERE r.id = ${chainRootSql(a)} AND ${test}) ELSE ${self} END)`

/**
 * What the list shows with its children filter off, and where search looks then, among sessions archived as
 * `archived` says: the sessions upstream's list shows (listableSql), and a continuation whose chain's root it shows
 * — one test in SQL, one walk up a chain, so a page is never cut short by rows dropped after its LIMIT, and search
 * hides exactly what the list hides.
 */
export const shownSql = (a: string, archived: ArchivedFilter) => shownBuilt(`${a} ${archived}`)
const shownBuilt = perAlias((key) => {
  const [a, f] = key.split(' ') as [string, ArchivedFilter]
  return byChainRoot(a, `${listableSql('r')} AND ${flagSql('r', f)}`, `(${listableSql(a)} AND ${flagSql(a, f)})`)
})

/** With the children filter on: every session, archived or not as its chain's root is (byChainRoot). */
export const archivedSql = (a: string, archived: ArchivedFilter) => archivedBuilt(`${a} ${archived}`)
const archivedBuilt = perAlias((key) => {
  const [a, f] = key.split(' ') as [string, ArchivedFilter]
  return f === 'include' ? '1' : byChainRoot(a, flagSql('r', f), flagSql(a, f))
})

/**
 * Children lookups name their index: after ANALYZE, sqlite_stat1 sees parent_session_id as one value
 * (NULL on most rows) and the planner would rather scan the whole table per row. Reconcile guarantees it.
 */
export const CHILDREN = 'sessions c INDEXED BY idx_sessions_parent'

/**
 * A compression-ended row whose continuation exists is superseded by it in lists (projected to the tip). `IS`, not
 * `=`: a live row's NULL end reason would make the whole test NULL, and `NOT NULL` hid a live parent that had a child.
 */
export const supersededSql = perAlias(
  (a) => `(${a}.end_reason IS 'compression' AND EXISTS (
  SELECT 1 FROM ${CHILDREN} WHERE c.parent_session_id = ${a}.id AND COALESCE(c.source, '') <> 'tool'
    AND ${noForkMarkersSql('c')}))`
)

export const ACTIVITY = 'COALESCE(s.last_activity_at, s.started_at)'

/**
 * A row no transcript shows, as upstream's display projection (the one every client of its gateway reads) decides:
 * one it marks `display_kind = 'hidden'` (model-facing scaffolding), and a user row whose text, leading whitespace
 * aside, opens with "[System:" — the runtime notes upstream (model switches, nudges) and Caduceus (its continuation
 * prompts, `continuation_notice`) store as user turns for the model. Exactly that opening: a user message that only
 * begins "[System]" or "[Systemd" is the user's own and stays. Also a `session_meta` row: upstream's gateway stores one
 * (no content) at a session's first turn as a record for its logs, and its resume, history load and HTML export all
 * skip it. `p` is the messages alias with its dot, or ''.
 */
export const hiddenMessageSql = (p: string) => `(COALESCE(${p}display_kind, '') = 'hidden' OR ${p}role = 'session_meta'
  OR (${p}role = 'user' AND substr(ltrim(COALESCE(${p}content, ''), ' ' || char(9, 10, 13)), 1, 8) = '[System:'))`
