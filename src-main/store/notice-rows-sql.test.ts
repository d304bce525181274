// The transcript leaves out notes to the model in SQL (sql.ts hiddenMessageSql); the exports, reading rows already
// loaded, tell them apart in code (shared/contract/notice-rows.ts). Both must draw the same line.
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { classifyRow } from '@shared/contract/notice-rows'
import { hiddenMessageSql } from './sql'

describe('a note to the model is the same row to the SQL that hides it and to the exports', () => {
  it('agrees on every edge of the rule', () => {
    const rows: Array<[string, string | null, string | null]> = [
      ['user', '[System: go on]', 'continuation_notice'],
      ['user', ' \n\t[System: a note]', null],
      ['user', '[System] mine', null],
      ['user', '[Systemd unit]', null],
      ['user', '[system: lower case]', null],
      ['assistant', '[System: said by the model]', null],
      ['user', 'anything', 'hidden'],
      ['tool', null, 'hidden'],
      ['user', null, null]
    ]
    const db = new Database(':memory:')
    try {
      const hidden = db.prepare(
        `SELECT ${hiddenMessageSql('')} FROM (SELECT ? AS role, ? AS content, ? AS display_kind)`
      )
      for (const [role, content, displayKind] of rows) {
        const sql = Boolean(hidden.pluck().get(role, content, displayKind))
        const code = classifyRow({ role, content, displayKind, finishReason: null, toolCalls: null })?.kind
        expect([role, content, displayKind, sql]).toEqual([role, content, displayKind, code === 'system_note'])
      }
    } finally {
      db.close()
    }
  })
})
