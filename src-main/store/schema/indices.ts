/**
 * Indices from hermes-spec §1.4 that our queries (or upstream's, on a DB we created) rely on. Created after
 * column reconciliation, all IF NOT EXISTS, so an upstream DB that already has them is untouched.
 */
/**
 * Every sessions column a list page reads (read-list.ts, read-summary.ts PAGE_SELECT, the filters' usual ones), led by
 * the id it is looked up by. Upstream stores each session's whole assembled system prompt (~22 KB on a fresh
 * home) in `sessions.system_prompt`, ahead of almost every column the list shows: reading a row's title or tokens walks
 * that prompt's chain of overflow pages, ~6 page reads a row, all of them again after every foreign commit (SQLite
 * drops a connection's page cache then). Read from this index instead, a page of 100 rows costs what it costs on a
 * home without prompts (0.8 → 0.36 ms for the page statement after a foreign write, 12 KB prompts). The planner would
 * rather take the unique id index, so the list names this one (`INDEXED BY`, read-list.ts) where the home has it.
 * Upstream's writes keep it current like any index; its readers never see it.
 */
export const LIST_INDEX = 'idx_cad_sessions_list'
export const LIST_INDEX_SQL = `CREATE INDEX IF NOT EXISTS ${LIST_INDEX} ON sessions(id, source, title, model, model_config,
  parent_session_id, message_count, tool_call_count, started_at, ended_at, end_reason, last_activity_at, input_tokens,
  output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd,
  cost_status, api_call_count, archived, pinned, hidden)`

export const INDEX_SQL: readonly string[] = [
  'CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source)',
  'CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id)',
  'CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)',
  'CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC)',
  'CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp)',
  'CREATE INDEX IF NOT EXISTS idx_messages_session_id ON messages(session_id, id)',
  "CREATE INDEX IF NOT EXISTS idx_messages_assistant_calls_by_session ON messages(session_id) WHERE role = 'assistant' AND tool_calls IS NOT NULL",
  'CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id)',
  'CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model)',
  'CREATE INDEX IF NOT EXISTS idx_async_delegations_delivery ON async_delegations(delivery_state, completed_at)',
  'CREATE INDEX IF NOT EXISTS idx_delegation_child_usage_parent ON delegation_child_usage(parent_session_id)',
  // DEFERRED_INDEX_SQL subset
  'CREATE INDEX IF NOT EXISTS idx_messages_session_active ON messages(session_id, active, timestamp)',
  'CREATE INDEX IF NOT EXISTS idx_sessions_session_key ON sessions(session_key, started_at DESC)',
  // The session list walks this index in order (keyset on the same expression), so page 1 is a short index scan.
  'CREATE INDEX IF NOT EXISTS idx_sessions_effective_activity ON sessions(COALESCE(last_activity_at, started_at) DESC, started_at DESC)',
  LIST_INDEX_SQL
]
