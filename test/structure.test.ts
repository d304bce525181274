// Structure rules a newcomer can trust (CONTRIBUTING.md "Layers"): SQL on state.db lives only in src-main/store/
// behind typed functions, and no other folder reaches a SessionStore's raw handle. Source-text checks: they read the
// files as written, so a new raw query anywhere else fails here before review.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(p)
    return /\.tsx?$/.test(e.name) ? [p] : []
  })
}

const rel = (p: string) => relative(root, p).split('\\').join('/')
const isTestCode = (r: string) => /\.test\.tsx?$/.test(r) || r.includes('/test-fixtures/') || /test-support\.ts$/.test(r)
/** Production files of src-main outside the store (a memory provider's own database stays in its folder). */
const outsideStore = tsFiles(join(root, 'src-main'))
  .map(rel)
  .filter((r) => !r.startsWith('src-main/store/') && !r.startsWith('src-main/memory/providers/') && !isTestCode(r))

/** Source without comments and string contents, so prose like "state.db" or "prepare()" in a comment never counts. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1')
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''")
    // Template literals: drop the text, keep the \${…} expressions (code could hide there).
    .replace(/`(?:\\.|[^`\\])*`/g, (t) => `\`${(t.match(/\$\{[^}]*\}/g) ?? []).join(' ')}\``)
}

function hits(pattern: RegExp): string[] {
  return outsideStore.flatMap((r) =>
    code(readFileSync(join(root, r), 'utf8'))
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${r}:${i + 1}: ${line.trim()}`] : []))
  )
}

describe('structure: SQL only in the store', () => {
  it('finds the files it checks (a walk that sees nothing cannot fail)', () => {
    expect(outsideStore).toContain('src-main/delegation/costs.ts')
    expect(outsideStore).toContain('src-main/memory/activity.ts')
    expect(outsideStore.some((r) => r.startsWith('src-main/store/'))).toBe(false)
  })

  it('no .prepare( outside src-main/store/, src-main/memory/providers/ and test code', () => {
    expect(hits(/\.prepare\(/)).toEqual([])
  })

  it('no raw SQL execution (.exec/.pragma/.transaction on a handle) outside the store', () => {
    expect(hits(/\b(db|sqlite|handle)\.(exec|pragma|transaction)\(/)).toEqual([])
  })

  it("nothing outside the store reaches a SessionStore's handle (.db, .orm, sqliteOf)", () => {
    expect(hits(/\.(db|orm)\b(?!\w)/)).toEqual([])
    expect(hits(/\bsqliteOf\b|\brawDb\b|store\/session-store/)).toEqual([])
  })

  it('the checks themselves fire on a raw query and a handle access', () => {
    expect(/\.prepare\(/.test(code("store.db.prepare('SELECT 1')"))).toBe(true)
    expect(/\.(db|orm)\b(?!\w)/.test(code("x.stores.get('a').db"))).toBe(true)
    expect(/\.prepare\(/.test(code("// db.prepare('x') in a comment\nconst s = 'a.prepare(b)'"))).toBe(false)
    expect(/\.(db|orm)\b(?!\w)/.test(code('const s = `in state.db ${store.db.name}`'))).toBe(true)
  })
})
