/**
 * Session-level upstream tables (hermes-spec §1.3). Names, types and defaults are upstream's exactly:
 * the DDL is generated from these definitions (ddl.ts), so a column added here is added to old DBs too.
 */
import { integer, real, sqliteTable, text, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core'

export const schemaVersion = sqliteTable('schema_version', {
  version: integer('version').notNull()
})

export const systemPrompts = sqliteTable('system_prompts', {
  hash: text('hash').primaryKey(),
  prompt: text('prompt').notNull()
})

export const stateMeta = sqliteTable('state_meta', {
  key: text('key').primaryKey(),
  value: text('value')
})

export const sessions = sqliteTable('sessions', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  created_source: text('created_source'),
  user_id: text('user_id'),
  session_key: text('session_key'),
  chat_id: text('chat_id'),
  chat_type: text('chat_type'),
  thread_id: text('thread_id'),
  display_name: text('display_name'),
  origin_json: text('origin_json'),
  expiry_finalized: integer('expiry_finalized').default(0),
  model: text('model'),
  model_config: text('model_config'),
  system_prompt: text('system_prompt'),
  system_prompt_hash: text('system_prompt_hash').references((): AnySQLiteColumn => systemPrompts.hash),
  parent_session_id: text('parent_session_id').references((): AnySQLiteColumn => sessions.id),
  started_at: real('started_at').notNull(),
  ended_at: real('ended_at'),
  end_reason: text('end_reason'),
  message_count: integer('message_count').default(0),
  tool_call_count: integer('tool_call_count').default(0),
  input_tokens: integer('input_tokens').default(0),
  output_tokens: integer('output_tokens').default(0),
  cache_read_tokens: integer('cache_read_tokens').default(0),
  cache_write_tokens: integer('cache_write_tokens').default(0),
  reasoning_tokens: integer('reasoning_tokens').default(0),
  cwd: text('cwd'),
  git_branch: text('git_branch'),
  git_repo_root: text('git_repo_root'),
  git_metadata_generation: integer('git_metadata_generation').notNull().default(0),
  billing_provider: text('billing_provider'),
  billing_base_url: text('billing_base_url'),
  billing_mode: text('billing_mode'),
  estimated_cost_usd: real('estimated_cost_usd'),
  actual_cost_usd: real('actual_cost_usd'),
  cost_status: text('cost_status'),
  cost_source: text('cost_source'),
  pricing_version: text('pricing_version'),
  title: text('title'),
  title_source: text('title_source'),
  last_activity_at: real('last_activity_at'),
  last_activity_description: text('last_activity_description'),
  last_activity_provenance: text('last_activity_provenance'),
  api_call_count: integer('api_call_count').default(0),
  handoff_state: text('handoff_state'),
  handoff_platform: text('handoff_platform'),
  handoff_error: text('handoff_error'),
  compression_failure_cooldown_until: real('compression_failure_cooldown_until'),
  compression_failure_error: text('compression_failure_error'),
  compression_fallback_streak: integer('compression_fallback_streak').notNull().default(0),
  compression_ineffective_count: integer('compression_ineffective_count').notNull().default(0),
  compression_recovery_deadline: real('compression_recovery_deadline'),
  compression_overload_streak: integer('compression_overload_streak').notNull().default(0),
  profile_name: text('profile_name'),
  transport_profile: text('transport_profile'),
  rewind_count: integer('rewind_count').notNull().default(0),
  archived: integer('archived').notNull().default(0),
  pinned: integer('pinned').notNull().default(0),
  hidden: integer('hidden').notNull().default(0),
  last_read_at: real('last_read_at'),
  tool_names: text('tool_names'),
  // Not in the captured SCHEMA_SQL but referenced upstream (hermes-spec §1.3): treated as NOT NULL DEFAULT 0.
  auto_archived: integer('auto_archived').notNull().default(0)
})
