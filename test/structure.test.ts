// Structure rules a newcomer can trust (CONTRIBUTING.md "Layers"). Import direction between layers is ESLint's job
// (eslint/layers.js, proven by test/lint.test.ts); this file owns the rest, each rule checked once:
// - SQL on state.db lives only in src-main/store/ and no other folder reaches a SessionStore's raw handle
//   (source-text checks on the files as written, so a new raw query anywhere else fails here before review);
// - each subsystem's index.ts face stays small (≤ 15 names, no `export *`) and exports only what production code in
//   other folders imports, and no production export is imported only by tests (both read from the compiler's view
//   in test/helpers/export-usage.ts).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findTestOnlyExports, isTestFile, type ExportUse } from './helpers/export-usage'
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
/** Production files of src-main outside the store (a memory provider's own database stays in its folder). */
const outsideStore = tsFiles(join(root, 'src-main'))
  .map(rel)
  .filter((r) => !r.startsWith('src-main/store/') && !r.startsWith('src-main/memory/providers/') && !isTestFile(r))

/** Source without comments and string contents, so prose like "state.db" or "prepare()" in a comment never counts. */
function code(text: string): string {
  return (
    text
      // Lines kept (a comment or template leaves its newlines), so a hit's line number is the file's.
      .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ''))
      .replace(/(^|[^:])\/\/.*$/gm, '$1')
      .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''")
      // Template literals: drop the text, keep the \${…} expressions (code could hide there).
      .replace(/`(?:\\.|[^`\\])*`/g, (t) => {
        const kept = (t.match(/\$\{[^}]*\}/g) ?? []).join(' ')
        return `\`${kept}${'\n'.repeat(t.split('\n').length - kept.split('\n').length)}\``
      })
  )
}

function hits(pattern: RegExp): string[] {
  return outsideStore.flatMap((r) =>
    code(readFileSync(join(root, r), 'utf8'))
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${r}:${i + 1}: ${line.trim()}`] : []))
  )
}

/** Where rows are read: the store, and a memory provider's own database (the only code that may prepare SQL). */
const sqlFiles = tsFiles(join(root, 'src-main'))
  .map(rel)
  .filter((r) => (r.startsWith('src-main/store/') || r.startsWith('src-main/memory/providers/')) && !isTestFile(r))

/**
 * Lines where a `.get(…)`/`.all(…)` result is cast (`…) as T`, or `(….all()) as T`): the call's parentheses are balanced on the source
 * without comments and strings, so a cast after a multi-line call counts too. A typed statement (`stmt<R>(…)`,
 * `prepare<unknown[], R>(…)`, row types from the schema) needs none (CONTRIBUTING.md "Store types"); measured
 * exactly, with the type checker, by scripts/measure-rows.mjs.
 */
function rowCasts(text: string): number[] {
  const src = code(text)
  const lines: number[] = []
  for (const m of src.matchAll(/\.(get|all)\(/g)) {
    let i = m.index + m[0].length
    for (let depth = 1; i < src.length && depth > 0; i++) depth += src[i] === '(' ? 1 : src[i] === ')' ? -1 : 0
    if (/^[\s)]*as\s+(?!const\b)/.test(src.slice(i, i + 40))) lines.push(src.slice(0, m.index).split('\n').length)
  }
  return lines
}

/** Casts on row reads: none since #27 — a statement states its row type (`stmt<R>`), so a new cast is a new failure. */
const ROW_CAST_CEILING = 0

describe('structure: rows are typed by their statements', () => {
  it(`at most ${ROW_CAST_CEILING} casts on a .get()/.all() result in the store and memory providers`, () => {
    const found = sqlFiles.flatMap((r) => rowCasts(readFileSync(join(root, r), 'utf8')).map((l) => `${r}:${l}`))
    console.log(`row casts: ${found.length} (ceiling ${ROW_CAST_CEILING})`)
    expect(found.length, found.join('\n')).toBeLessThanOrEqual(ROW_CAST_CEILING)
  })

  it('the check finds a cast after a call, on one line or several, and nothing else', () => {
    expect(rowCasts("const r = stmt(db, 'SELECT 1').get(id) as { n: number }")).toEqual([1])
    expect(rowCasts('const r = (\n  q\n    .all(a, f(b))\n) as X[]\nconst n = q.all(\n  a\n) as Y[]')).toEqual([3, 5])
    expect(rowCasts("const r = stmt<R>(db, 'SELECT 1').get(id)\nconst k = ['a'] as const")).toEqual([])
    expect(rowCasts("// x.get(1) as T\nconst s = 'y.all() as T'")).toEqual([])
  })
})

/**
 * Lines of `catch {` (no binding) that do not say why any error may be dropped there: a comment on the `catch {` line
 * or the line after it. An expected failure has a named helper instead (`isNotFound`, `parseJsonOr`, `parseUrl` in
 * shared/contract/errors.ts; `readFileIfExists`, `statIfExists` in files/), or the error is bound and logged (#27).
 */
function silentCatches(text: string): number[] {
  const raw = text.split('\n')
  return code(text)
    .split('\n')
    .flatMap((line, i) => {
      const at = line.search(/\bcatch\s*\{/)
      if (at < 0) return []
      const said = /\/\/|\/\*/.test(raw[i]!.slice(at)) || /^\s*(\/\/|\/\*)|\s\/\/\s/.test(raw[i + 1] ?? '')
      return said ? [] : [i + 1]
    })
}

/** Bare catches that say nothing about why: none since #27; a new one names its error or says why it may go. */
const SILENT_CATCH_CEILING = 0

describe('structure: a swallowed error is a named one', () => {
  it(`at most ${SILENT_CATCH_CEILING} bare catch blocks without a word on why in production code`, () => {
    const files = ['src-main', 'src-renderer', 'shared']
      .flatMap((d) => tsFiles(join(root, d)))
      .map(rel)
      .filter((r) => !isTestFile(r))
      .map((r) => ({ r, text: readFileSync(join(root, r), 'utf8') }))
    const found = files.flatMap(({ r, text }) => silentCatches(text).map((l) => `${r}:${l}`))
    const bare = files.reduce((n, { text }) => n + (code(text).match(/\bcatch\s*\{/g) ?? []).length, 0)
    console.log(`bare catch blocks: ${bare}, without a reason: ${found.length} (ceiling ${SILENT_CATCH_CEILING})`)
    expect(found.length, found.join('\n')).toBeLessThanOrEqual(SILENT_CATCH_CEILING)
  })

  it('the check finds a silent catch and passes one that says why', () => {
    expect(silentCatches('try {\n  f()\n} catch {\n  return null\n}')).toEqual([3])
    expect(silentCatches('try {\n  f()\n} catch {\n  return null // absent: none\n}')).toEqual([])
    expect(silentCatches('try {\n  f()\n} catch {\n  // best effort\n}')).toEqual([])
    expect(silentCatches('} catch { /* gone */ }')).toEqual([])
    expect(silentCatches('} catch (err) {\n  return null\n}')).toEqual([])
    expect(silentCatches("const s = 'x catch { y'\n// } catch {")).toEqual([])
  })
})

describe('structure: SQL only in the store', () => {
  it('finds the files it checks (a walk that sees nothing cannot fail)', () => {
    expect(outsideStore).toContain('src-main/costs/summary.ts')
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
/** host/ has one folder per job, each with its own face (CONTRIBUTING.md "Inside host/"). */
const HOST_JOBS = [
  'app-channels',
  'compose',
  'services',
  'dispatch',
  'handlers',
  'transport',
  'cli',
  'electron',
  'log',
  'memory-providers'
].map((j) => `host/${j}`)

/** Every face rule broken in a project, as `face: reason` lines (empty when the faces are fine). */
function faceProblems(use: ExportUse): string[] {
  const problems: string[] = []
  for (const [face, names] of Object.entries(use.faces)) {
    if (names.length > FACE_LIMIT) problems.push(`${face}: ${names.length} names (${names.join(', ')})`)
    for (const star of use.faceStars[face] ?? []) problems.push(`${face}: ${star}`)
    const used = new Set(use.faceUsers[face] ?? [])
    // The Electron entry (src-main/index.ts) reaches host's face; host's own types describe createHost.
    for (const n of names)
      if (!used.has(n) && !used.has('*') && !(face === 'host' && (n === 'HostOptions' || n === 'Host')))
        problems.push(`${face}.${n}: no production code in another folder imports it`)
  }
  return problems.sort()
}

/** Test-only exports beyond the shrinking baseline, and baseline entries that are fixed (the list must stay exact). */
function testOnlyDrift(use: ExportUse, baseline: readonly string[]) {
  const known = new Set(baseline)
  return {
    added: use.testOnly.filter((e) => !known.has(e)),
    fixed: baseline.filter((e) => !use.testOnly.includes(e))
  }
}

// The compiler's view of every production module (src-main, src-renderer, shared): an export that only test files
// import is a test hook in production code. Tests reach behaviour through the real path (or a constructor option),
// and a type a test needs is derived from the function it tests (Parameters<…>, ConstructorParameters<…>).
describe('structure: small faces, and no production export used only by tests', () => {
  let use: ExportUse
  beforeAll(() => {
    use = findTestOnlyExports()
  }, 180_000)

  it('walks the production modules and finds the subsystem faces', () => {
    expect(use.checked).toBeGreaterThan(500)
    expect(Object.keys(use.faces)).toEqual(
      expect.arrayContaining(['agent', 'config', 'delegation', 'gateway', 'host', 'memory', 'store', ...HOST_JOBS])
    )
    expect(use.faceUsers['store']).toContain('SessionStore')
  })

  it(`each src-main/<folder>/index.ts exports at most ${FACE_LIMIT} names (types counted), no export *, and only names production code in another folder imports`, () => {
    expect(faceProblems(use)).toEqual([])
  })

  it('no export is imported only by test files (beyond the shrinking baseline, which must stay exact)', () => {
    expect(testOnlyDrift(use, TEST_ONLY_BASELINE)).toEqual({ added: [], fixed: [] })
  })
})

describe('structure: the face and test-only checks fire on a project that breaks them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'caduceus-structure-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), text)
  }

  it('reports a face over the limit, an export *, an unused face name and a test-only export', () => {
    const many = Array.from({ length: FACE_LIMIT + 1 }, (_, i) => `n${i}`)
    write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true }, include: ['src-main', 'test'] }))
    write('src-main/big/parts.ts', many.map((n) => `export const ${n} = 1`).join('\n') + '\nexport const hook = 2\n')
    write('src-main/big/more.ts', 'export interface More { a: number }\n')
    write('src-main/big/index.ts', `export { ${many.join(', ')} } from './parts'\nexport * from './more'\n`)
    write(
      'src-main/user/index.ts',
      `import { ${many.slice(1).join(', ')} } from '../big'\nexport const all = [${many.slice(1).join(', ')}]\n`
    )
    write('test/uses.test.ts', "import { hook } from '../src-main/big/parts'\nexport const t = hook\n")
    const bad = findTestOnlyExports(dir)
    const problems = faceProblems(bad)
    expect(problems).toContainEqual(expect.stringMatching(/^big: 17 names/))
    expect(problems).toContain("big: export * from './more'")
    expect(problems).toContain('big.n0: no production code in another folder imports it')
    expect(problems).toContain('big.More: no production code in another folder imports it')
    expect(problems).toContain('user.all: no production code in another folder imports it')
    expect(testOnlyDrift(bad, [])).toEqual({ added: ['src-main/big/parts.ts#hook'], fixed: [] })
    expect(testOnlyDrift(bad, ['src-main/big/parts.ts#n1'])).toEqual({
      added: ['src-main/big/parts.ts#hook'],
      fixed: ['src-main/big/parts.ts#n1']
    })
  })
})
