/** Per-route and per-day usage attribution (hermes-spec §1.3, §1.9). Both are additive upserts. */
import { integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { sessions } from './sessions'

export const sessionModelUsage = sqliteTable(
  'session_model_usage',
  {
    session_id: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    billing_provider: text('billing_provider').notNull().default(''),
    billing_base_url: text('billing_base_url').notNull().default(''),
    billing_mode: text('billing_mode').notNull().default(''),
    task: text('task').notNull().default(''),
    api_call_count: integer('api_call_count').notNull().default(0),
    input_tokens: integer('input_tokens').notNull().default(0),
    output_tokens: integer('output_tokens').notNull().default(0),
    cache_read_tokens: integer('cache_read_tokens').notNull().default(0),
    cache_write_tokens: integer('cache_write_tokens').notNull().default(0),
    reasoning_tokens: integer('reasoning_tokens').notNull().default(0),
    estimated_cost_usd: real('estimated_cost_usd').notNull().default(0),
    actual_cost_usd: real('actual_cost_usd').notNull().default(0),
    cost_status: text('cost_status'),
    cost_source: text('cost_source'),
    first_seen: real('first_seen'),
    last_seen: real('last_seen')
  },
  (t) => [
    primaryKey({ columns: [t.session_id, t.model, t.billing_provider, t.billing_base_url, t.billing_mode, t.task] })
  ]
)

// Not in the captured SCHEMA_SQL (hermes_state_usage.py creates it); counters default to 0 so upserts can add.
export const sessionDailyUsage = sqliteTable(
  'session_daily_usage',
  {
    session_id: text('session_id').notNull(),
    day: text('day').notNull(),
    input_tokens: integer('input_tokens').notNull().default(0),
    output_tokens: integer('output_tokens').notNull().default(0),
    cache_read_tokens: integer('cache_read_tokens').notNull().default(0),
    cache_write_tokens: integer('cache_write_tokens').notNull().default(0),
    reasoning_tokens: integer('reasoning_tokens').notNull().default(0),
    estimated_cost_usd: real('estimated_cost_usd').notNull().default(0),
    actual_cost_usd: real('actual_cost_usd').notNull().default(0),
    api_call_count: integer('api_call_count').notNull().default(0)
  },
  (t) => [primaryKey({ columns: [t.session_id, t.day] })]
)
