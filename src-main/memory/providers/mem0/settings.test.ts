import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Mem0Provider } from './provider'
import { readMem0Settings } from './settings'

const homes: string[] = []
const home = () => {
  const h = mkdtempSync(join(tmpdir(), 'cad-mem0-settings-'))
  homes.push(h)
  return h
}
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true })
})

describe('mem0.json', () => {
  it('absent: no file error; malformed or unreadable: ignored, and fileError says which', () => {
    expect(readMem0Settings({ home: home(), env: {} }).fileError).toBeNull()
    const bad = home()
    writeFileSync(join(bad, 'mem0.json'), '{"host": ')
    expect(readMem0Settings({ home: bad, env: {} }).fileError).toBe('not valid JSON')
    // A folder in the file's place (fails for root too, unlike chmod 000) is not an absent file.
    const folder = home()
    mkdirSync(join(folder, 'mem0.json'))
    const s = readMem0Settings({ home: folder, env: {} })
    expect(s.fileError).toMatch(/cannot be read \(EISDIR/)
    expect(s.host).toBe('')
    // …and the provider's reason for being unavailable names it (the server may have been meant to be set there).
    expect(new Mem0Provider({ home: folder, env: {} }).unavailableReason()).toMatch(
      /mem0\.json was ignored: cannot be read \(EISDIR/
    )
  })

  // scripts/golden/mem0_rerank.py: upstream's provider reads a word from text and Python's bool() of anything else
  it("rerank: the default search rerank upstream's provider takes from mem0.json", () => {
    const G = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../../test/fixtures/upstream/mem0-rerank/golden.json'), 'utf8')
    ) as { cases: Array<{ mem0_json_rerank: string; rerank: boolean }> }
    const h = home()
    for (const c of G.cases) {
      writeFileSync(join(h, 'mem0.json'), `{"rerank": ${c.mem0_json_rerank}}`)
      expect({ ...c, rerank: readMem0Settings({ home: h, env: {} }).rerank }).toEqual(c)
    }
  })
})
