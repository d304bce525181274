/** Session detail: lineage (chain, parent, branches, delegate children) and usage by model. */
import type Database from 'better-sqlite3'
import { stmt, type AllColumns, type ColumnsOf } from './stmt-cache'
import type { sessionModelUsage, sessions } from './schema'
import { maskUrlCredentials, type ModelUsage, type SessionDetail, type SessionRef } from '@shared/contract'
import { compressionChain } from './lineage'
import { refOf, summaryById } from './read-summary'
import { anyBranchSql, isDelegateSql } from './sql'
import { moneyOf } from './usage'
import { num, numOrNull } from './util'
import { currentColumns } from './reconcile'
import { shownCount } from './read-messages'

/** The session's prompt, from system_prompts by hash or inline: checked for text where it is used. */
type Prompt = { prompt: unknown }

function childRefs(db: Database.Database, parentIds: string[], kindSql: string): SessionRef[] {
  if (parentIds.length === 0) return []
  const ids = stmt<ColumnsOf<typeof sessions, 'id'>>(
    db,
    `SELECT s.id FROM sessions s INDEXED BY idx_sessions_parent WHERE s.parent_session_id IN (${parentIds.map(() => '?').join(',')})
    AND ${kindSql} ORDER BY s.started_at, s.id`
  ).all(...parentIds)
  return ids.map((r) => refOf(db, r.id)).filter((r): r is SessionRef => r !== null)
}

export function usageByModel(db: Database.Database, sessionId: string): ModelUsage[] {
  const rows = stmt<AllColumns<typeof sessionModelUsage>>(
    db,
    `SELECT * FROM session_model_usage WHERE session_id = ? ORDER BY first_seen, model`
  ).all(sessionId)
  return rows.map((r) => {
    const tokens = {
      input: num(r.input_tokens),
      output: num(r.output_tokens),
      cacheRead: num(r.cache_read_tokens),
      cacheWrite: num(r.cache_write_tokens),
      reasoning: num(r.reasoning_tokens)
    }
    const used = num(r.api_call_count) > 0 || tokens.input + tokens.output > 0
    // The table's cost columns are NOT NULL DEFAULT 0, so "unpriced" lives only in cost_status (moneyOf reads it).
    const cost = moneyOf(r.estimated_cost_usd, r.actual_cost_usd, r.cost_status, used)
    return {
      model: String(r.model),
      provider: String(r.billing_provider ?? ''),
      task: String(r.task ?? ''),
      // Upstream stores the base URL as its agent had it, a `user:password@` included: the password stays here.
      ...(typeof r.billing_base_url === 'string' && r.billing_base_url
        ? { baseUrl: maskUrlCredentials(r.billing_base_url) }
        : {}),
      ...(typeof r.billing_mode === 'string' && r.billing_mode ? { mode: r.billing_mode } : {}),
      apiCalls: num(r.api_call_count),
      tokens,
      cost
    }
  })
}

/** The session's stored system prompt (by hash or inline), or null. */
export function storedSystemPrompt(db: Database.Database, id: string): string | null {
  const row = stmt<Prompt>(
    db,
    `SELECT COALESCE((SELECT prompt FROM system_prompts p WHERE p.hash = s.system_prompt_hash), s.system_prompt) AS prompt
    FROM sessions s WHERE id = ?`
  ).get(id)
  return typeof row?.prompt === 'string' && row.prompt !== '' ? row.prompt : null
}

/**
 * Last activity as the list orders by it (activity-index.ts): upstream's COALESCE(last message time, start) on a
 * home without `last_activity_at`; with it, the later of that column and the last message.
 */
function lastActive(db: Database.Database, id: string, startedAt: number, own: number): number {
  // an infinite timestamp (stored as upstream's import stores `1e999`) is no time to show: the start stands instead
  const last = numOrNull(stmt(db, 'SELECT MAX(timestamp) FROM messages WHERE session_id = ?').pluck().get(id))
  if (!currentColumns(db, 'sessions').has('last_activity_at')) return last ?? startedAt
  return Math.max(own, last ?? startedAt)
}

/**
 * The chain's segments, each with how many messages its transcript shows of it (`chainMessages`). The transcript
 * opened at `openId` reads the segments up to it as one conversation: each earlier one without the rows the next one
 * carries copies of, the open one whole. A segment after it counts as the transcript opened at the tip shows it.
 */
function chainRefs(db: Database.Database, chainIds: string[], openId: string): SessionRef[] {
  const refs = chainIds.map((c, i) => {
    const r = refOf(db, c)
    if (!r || chainIds.length < 2) return r
    return { ...r, chainMessages: shownCount(db, c, c === openId ? undefined : chainIds[i + 1]) }
  })
  return refs.filter((r): r is SessionRef => r !== null)
}

export function sessionDetail(db: Database.Database, profile: string, id: string): SessionDetail | null {
  const found = summaryById(db, profile, id)
  if (!found) return null
  const summary = { ...found, lastActiveAt: lastActive(db, id, found.startedAt, found.lastActiveAt) }
  const chainRows = compressionChain(db, id)
  const chainIds = chainRows.map((r) => r.id)
  const root = chainRows[0]
  // The prompt lives in system_prompts by hash (v25+) or inline (older homes); the read shim supplies whichever
  // the home lacks, so one query serves both.
  const extra = stmt<ColumnsOf<typeof sessions, 'cwd' | 'git_branch' | 'api_call_count'> & Prompt>(
    db,
    `SELECT cwd, git_branch, api_call_count,
      COALESCE((SELECT prompt FROM system_prompts p WHERE p.hash = s.system_prompt_hash), s.system_prompt) AS prompt
    FROM sessions s WHERE id = ?`
  ).get(id)!
  const branches = childRefs(db, chainIds, anyBranchSql('s'))
  const delegateChildren = childRefs(db, chainIds, isDelegateSql('s'))
  return {
    summary,
    lineage: {
      chain: chainRefs(db, chainIds, id),
      parent: root?.parent_session_id ? refOf(db, root.parent_session_id) : null,
      branches,
      delegateChildren,
      // COALESCE: a NULL source makes the tests NULL, and NOT NULL would drop an unmarked child
      otherChildren: childRefs(
        db,
        chainIds,
        `COALESCE(${anyBranchSql('s')}, 0) = 0 AND COALESCE(${isDelegateSql('s')}, 0) = 0`
      ).filter((r) => !chainIds.includes(r.id))
    },
    usage: usageByModel(db, id),
    cwd: extra.cwd ?? null,
    gitBranch: extra.git_branch ?? null,
    apiCallCount: num(extra.api_call_count),
    systemPrompt: typeof extra.prompt === 'string' && extra.prompt !== '' ? extra.prompt : null
  }
}
