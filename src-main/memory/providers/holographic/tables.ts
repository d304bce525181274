/**
 * The tables of `memory_store.db` whose rows this provider reads (fact_entities is only joined through): the one
 * declaration its row types come from (`typeof facts.$inferSelect`), beside the DDL that creates them (schema.ts,
 * upstream's text, which stays the source for the file itself). A column with a DEFAULT is typed NOT NULL: every
 * writer (upstream's plugin and store.ts) leaves it to its default or sets a value.
 */
import { blob, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const facts = sqliteTable('facts', {
  fact_id: integer('fact_id').primaryKey({ autoIncrement: true }),
  content: text('content').notNull().unique(),
  category: text('category').notNull().default('general'),
  tags: text('tags').notNull().default(''),
  trust_score: real('trust_score').notNull().default(0.5),
  retrieval_count: integer('retrieval_count').notNull().default(0),
  helpful_count: integer('helpful_count').notNull().default(0),
  created_at: text('created_at').notNull(),
  updated_at: text('updated_at').notNull(),
  hrr_vector: blob('hrr_vector', { mode: 'buffer' })
})

export const entities = sqliteTable('entities', {
  entity_id: integer('entity_id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  entity_type: text('entity_type').notNull().default('unknown'),
  aliases: text('aliases').notNull().default(''),
  created_at: text('created_at').notNull()
})

export const memoryBanks = sqliteTable('memory_banks', {
  bank_id: integer('bank_id').primaryKey({ autoIncrement: true }),
  bank_name: text('bank_name').notNull().unique(),
  vector: blob('vector', { mode: 'buffer' }).notNull(),
  dim: integer('dim').notNull(),
  fact_count: integer('fact_count').notNull().default(0),
  updated_at: text('updated_at').notNull()
})
