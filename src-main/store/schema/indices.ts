/**
 * Indices from hermes-spec §1.4 that our queries (or upstream's, on a DB we created) rely on. Created after
 * column reconciliation, all IF NOT EXISTS, so an upstream DB that already has them is untouched.
 */
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
  'CREATE INDEX IF NOT EXISTS idx_sessions_effective_activity ON sessions(COALESCE(last_activity_at, started_at) DESC, started_at DESC)'
]
