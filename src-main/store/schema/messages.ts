/** The `messages` table (hermes-spec §1.3), column for column. */
import { blob, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { sessions } from './sessions'

export const messages = sqliteTable('messages', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  session_id: text('session_id')
    .notNull()
    .references(() => sessions.id),
  role: text('role').notNull(),
  content: text('content'),
  tool_call_id: text('tool_call_id'),
  tool_calls: text('tool_calls'),
  tool_name: text('tool_name'),
  effect_disposition: text('effect_disposition'),
  timestamp: real('timestamp').notNull(),
  token_count: integer('token_count'),
  finish_reason: text('finish_reason'),
  reasoning: text('reasoning'),
  reasoning_content: text('reasoning_content'),
  reasoning_details: text('reasoning_details'),
  codex_reasoning_items: text('codex_reasoning_items'),
  codex_message_items: text('codex_message_items'),
  platform_message_id: text('platform_message_id'),
  observed: integer('observed').default(0),
  _compressed_summary: integer('_compressed_summary').notNull().default(0),
  active: integer('active').notNull().default(1),
  compacted: integer('compacted').notNull().default(0),
  api_content: text('api_content'),
  display_kind: text('display_kind'),
  display_metadata: text('display_metadata'),
  display_identity: blob('display_identity'),
  display_order: integer('display_order')
})
