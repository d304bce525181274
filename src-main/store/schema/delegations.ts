/** Durable delegation tables (hermes-spec §2.2), including the retained-subagent columns. */
import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const asyncDelegations = sqliteTable('async_delegations', {
  delegation_id: text('delegation_id').primaryKey(),
  origin_session: text('origin_session').notNull(),
  origin_ui_session_id: text('origin_ui_session_id').notNull().default(''),
  parent_session_id: text('parent_session_id'),
  state: text('state').notNull(),
  dispatched_at: real('dispatched_at').notNull(),
  completed_at: real('completed_at'),
  updated_at: real('updated_at').notNull(),
  event_json: text('event_json'),
  result_json: text('result_json'),
  delivery_state: text('delivery_state').notNull().default('pending'),
  delivery_attempts: integer('delivery_attempts').notNull().default(0),
  delivered_at: real('delivered_at'),
  owner_pid: integer('owner_pid'),
  owner_started_at: integer('owner_started_at'),
  task_json: text('task_json'),
  delivery_claim: text('delivery_claim'),
  delivery_claimed_at: real('delivery_claimed_at'),
  origin_session_id: text('origin_session_id').notNull().default(''),
  child_session_id: text('child_session_id'),
  children_json: text('children_json'),
  retained: integer('retained'),
  retained_at: real('retained_at'),
  tombstoned_at: real('tombstoned_at'),
  owner_profile: text('owner_profile'),
  usage_json: text('usage_json')
})

export const delegationChildUsage = sqliteTable('delegation_child_usage', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  parent_session_id: text('parent_session_id').notNull(),
  parent_turn_id: text('parent_turn_id').notNull().default(''),
  child_session_id: text('child_session_id').notNull().default(''),
  usage_json: text('usage_json').notNull(),
  aggregate_json: text('aggregate_json'),
  created_at: real('created_at').notNull()
})
