// Golden: test/fixtures/upstream/title-sanitize/cases.json, written by scripts/golden/title_sanitize.py with
// upstream's own SessionDB.sanitize_title. The store and the rename box both clean with cleanTitle.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanTitle } from '@shared/contract'

const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/upstream/title-sanitize/cases.json'), 'utf8')
) as { cases: Array<[string, string | null]> }

describe('title cleaning matches upstream sanitize_title', () => {
  it.each(golden.cases)('%j', (raw, cleaned) => {
    expect(cleanTitle(raw)).toBe(cleaned)
  })
})
