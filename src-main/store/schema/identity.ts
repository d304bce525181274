/**
 * Message identity, the four `messages` columns schema v31 adds (NousResearch/hermes-agent, hermes_state_common @
 * 0ebb0462). Declared for their row types only, in a table of their own that the schema index does not re-export:
 * it is not in DECLARED_TABLES, so reconcile never adds these columns to a home — they are written only where a
 * home already has them (store/message-identity.ts), and a v21/v30 home stays as its upstream left it.
 */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const messageIdentity = sqliteTable('messages', {
  id: integer('id').primaryKey(),
  /** 32 lowercase hex digits, minted once per message at its first insert. */
  message_uid: text('message_uid'),
  /** JSON list of the uids a merged row absorbed (upstream's consecutive-user merge). */
  absorbed_message_uids: text('absorbed_message_uids'),
  /** On an assistant row with calls: JSON object, provider call id → uid (or a list, one per occurrence). */
  tool_call_uids: text('tool_call_uids'),
  /** On a tool result: the uid of the call it answers. */
  tool_call_uid: text('tool_call_uid')
})
