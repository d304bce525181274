// Structure rules a newcomer can trust (CONTRIBUTING.md "Layers"): SQL on state.db lives only in src-main/store/
// behind typed functions, no other folder reaches a SessionStore's raw handle, and each subsystem's index.ts face
// stays small (≤ 15 names, no `export *`) and exports only what production code in other folders imports. Source-text checks: they read the
// files as written, so a new raw query anywhere else fails here before review.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { findTestOnlyExports, type ExportUse } from './helpers/export-usage'
import { TEST_ONLY_BASELINE } from './helpers/test-only-baseline'

const root = resolve(import.meta.dirname, '..')

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(p)
    return /\.tsx?$/.test(e.name) ? [p] : []
  })
}

const rel = (p: string) => relative(root, p).split('\\').join('/')
const isTestCode = (r: string) =>
  /\.test\.tsx?$/.test(r) || r.includes('/test-fixtures/') || /test-support\.ts$/.test(r)
/** Production files of src-main outside the store (a memory provider's own database stays in its folder). */
const outsideStore = tsFiles(join(root, 'src-main'))
  .map(rel)
  .filter((r) => !r.startsWith('src-main/store/') && !r.startsWith('src-main/memory/providers/') && !isTestCode(r))

/** Source without comments and string contents, so prose like "state.db" or "prepare()" in a comment never counts. */
function code(text: string): string {
  return (
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:])\/\/.*$/gm, '$1')
      .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''")
      // Template literals: drop the text, keep the \${…} expressions (code could hide there).
      .replace(/`(?:\\.|[^`\\])*`/g, (t) => `\`${(t.match(/\$\{[^}]*\}/g) ?? []).join(' ')}\``)
  )
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

const FACE_LIMIT = 15
const subsystems = readdirSync(join(root, 'src-main'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .filter((d) => tsFiles(join(root, 'src-main', d)).some((p) => rel(p) === `src-main/${d}/index.ts`))

/** Names an index.ts exports: `export { a, b as c }` (with or without `from`), `export type {…}`, declarations. */
function faceNames(source: string): { names: string[]; star: string[] } {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1')
  const names: string[] = []
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const p = part.trim().replace(/^type\s+/, '')
      if (p)
        names.push(
          p
            .split(/\s+as\s+/)
            .pop()!
            .trim()
        )
    }
  }
  for (const m of text.matchAll(
    /export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+(\w+)/g
  ))
    names.push(m[1]!)
  if (/export\s+default\s+(?!(?:async\s+)?(?:function|class)\b)/.test(text)) names.push('default')
  const star = [...text.matchAll(/export\s+\*[^\n]*/g)].map((m) => m[0])
  return { names, star }
}

/** Every `{ … }` name production code outside `face` imports from src-main/<face>/index.ts. */
function importedFromFace(face: string): Set<string> {
  const used = new Set<string>()
  const prodFiles = ['src-main', 'bin', 'scripts'].flatMap((d) => {
    try {
      return tsFiles(join(root, d))
    } catch {
      return []
    }
  })
  for (const file of prodFiles) {
    const r = rel(file)
    if (isTestCode(r) || r.startsWith(`src-main/${face}/`)) continue
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"]([^'"]+)['"]/g)) {
      if (!m[2]!.startsWith('.')) continue
      const target = rel(resolve(join(file, '..'), m[2]!)).replace(/\/index(\.ts)?$/, '')
      if (target !== `src-main/${face}`) continue
      for (const part of m[1]!.split(',')) {
        const p = part.trim().replace(/^type\s+/, '')
        if (p) used.add(p.split(/\s+as\s+/)[0]!.trim())
      }
    }
  }
  return used
}

describe('structure: small faces', () => {
  it('finds the subsystem faces', () => {
    expect(subsystems).toEqual(
      expect.arrayContaining(['agent', 'config', 'delegation', 'gateway', 'host', 'memory', 'store'])
    )
  })

  it(`each src-main/<folder>/index.ts exports at most ${FACE_LIMIT} names (types counted) and no export *`, () => {
    const over: string[] = []
    for (const face of subsystems) {
      const { names, star } = faceNames(readFileSync(join(root, 'src-main', face, 'index.ts'), 'utf8'))
      if (names.length > FACE_LIMIT) over.push(`${face}: ${names.length} names (${names.join(', ')})`)
      for (const s of star) over.push(`${face}: ${s}`)
    }
    expect(over).toEqual([])
  })

  it('every name on a face is imported by production code in another folder (tests import internals by path)', () => {
    const unused: string[] = []
    for (const face of subsystems) {
      const used = importedFromFace(face)
      // The Electron entry (src-main/index.ts) reaches host's face; host's own types describe createHost.
      const { names } = faceNames(readFileSync(join(root, 'src-main', face, 'index.ts'), 'utf8'))
      for (const n of names)
        if (!used.has(n) && !(face === 'host' && (n === 'HostOptions' || n === 'Host'))) unused.push(`${face}.${n}`)
    }
    expect(unused).toEqual([])
  })

  it('the counter counts every export form', () => {
    const { names, star } = faceNames(
      "export { a, b as c } from './x'\nexport type { T } from './t'\nexport { type U, v } from './u'\nexport function f() {}\nexport const k = 1\nexport interface I {}\nexport type A = string\nexport * from './y'\nexport * as ns from './z'\n// export { commented }"
    )
    expect(names).toEqual(['a', 'c', 'T', 'U', 'v', 'f', 'k', 'I', 'A'])
    expect(star).toHaveLength(2)
  })
})

// The compiler's view of every production module (src-main, src-renderer, shared): an export that only test files
// import is a test hook in production code. Tests reach behaviour through the real path (or a constructor option),
// and a type a test needs is derived from the function it tests (Parameters<…>, ConstructorParameters<…>).
describe('structure: no production export is used only by tests', () => {
  let use: ExportUse
  beforeAll(() => {
    use = findTestOnlyExports()
  }, 180_000)

  it('walks the production modules and sees every face the way the compiler does (types counted, export * too)', () => {
    expect(use.checked).toBeGreaterThan(500)
    for (const face of subsystems) {
      const counted = faceNames(readFileSync(join(root, 'src-main', face, 'index.ts'), 'utf8')).names
      expect([...(use.faces[face] ?? [])].sort(), face).toEqual([...counted].sort())
    }
  })

  it('no export is imported only by test files (beyond the shrinking baseline, which must stay exact)', () => {
    const baseline = new Set(TEST_ONLY_BASELINE)
    const added = use.testOnly.filter((e) => !baseline.has(e))
    const fixed = TEST_ONLY_BASELINE.filter((e) => !use.testOnly.includes(e))
    expect({ added, fixed }).toEqual({ added: [], fixed: [] })
  })
})
