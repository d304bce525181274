/**
 * Which production exports are imported only by tests. Uses the TypeScript compiler (the project's own
 * tsconfig.json program), so an import through a face (`export { x } from './x'`), a renamed import, a type-only
 * import and a path alias all resolve to the declaration they name; a namespace import, `import('…')` or an
 * `import('…').T` type counts as using every export of its module.
 */
import { dirname, relative, resolve } from 'node:path'
import ts from 'typescript'

const root = resolve(import.meta.dirname, '../..')

/** Test code: vitest files, fixtures, helpers, Playwright, and the renderer's test utilities. */
export const isTestFile = (r: string): boolean =>
  /\.test\.tsx?$/.test(r) ||
  r.includes('/test-fixtures/') ||
  r.includes('/test-utils/') ||
  /(^|\/)test-support\.tsx?$/.test(r) ||
  r.startsWith('test/') ||
  r.startsWith('e2e/')

const isProductionModule = (r: string): boolean =>
  /^(src-main|src-renderer|shared)\//.test(r) && /\.tsx?$/.test(r) && !r.endsWith('.d.ts') && !isTestFile(r)

/** Entry points: their exports are read by Electron, the bundler or bin/caduceus.mjs, not by an import. */
export const ENTRY_POINTS = new Set([
  'src-main/index.ts',
  'src-main/preload.ts',
  'src-main/host/cli/main.ts',
  'src-renderer/main.tsx'
])

/** A face: `src-main/<folder>/index.ts`, and one level deeper inside host/ (one folder per job: `host/cli`, …). */
const FACE = /^src-main\/((?:host\/)?[^/]+)\/index(?:\.ts)?$/

export interface ExportUse {
  /** `path#name` of each production export imported by a test file and by no production file. */
  testOnly: string[]
  /** How many production exports were checked (a walk that sees nothing cannot fail). */
  checked: number
  /** Names each `src-main/<folder>/index.ts` (and `src-main/host/<job>/index.ts`) face exports, as the compiler sees them (types counted). */
  faces: Record<string, string[]>
  /** Each face's `export * …` statements (they hide what the face exports). */
  faceStars: Record<string, string[]>
  /** Names production code outside each face's folder (src-main, scripts, bin) imports through that face (`*`: a
   * dynamic `import()` of the face, which uses all of it). */
  faceUsers: Record<string, string[]>
}

export function findTestOnlyExports(projectRoot: string = root): ExportUse {
  const configPath = resolve(projectRoot, 'tsconfig.json')
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      }
    }
  )!
  // Only the project's own modules matter here: no lib or package typings are loaded (imports of packages stay
  // unresolved), which cuts the program from every .d.ts in node_modules to the project's files.
  const options = { ...parsed.options, noEmit: true, noLib: true, types: [] as string[] }
  const host = ts.createCompilerHost(options)
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts) =>
    literals.map((lit) => {
      const spec = lit.text
      if (!spec.startsWith('.') && !spec.startsWith('@shared')) return { resolvedModule: undefined }
      return ts.resolveModuleName(spec, containingFile, opts, host, undefined, redirected)
    })
  const program = ts.createProgram({ rootNames: parsed.fileNames, options, host })
  const checker = program.getTypeChecker()
  const relOf = (f: string) => relative(projectRoot, f).split('\\').join('/')
  /** declaration symbol → files that import it (by a resolved import, not a re-export). */
  const users = new Map<ts.Symbol, Set<string>>()
  const wholeModuleUsers = new Map<string, Set<string>>()
  const add = <K>(m: Map<K, Set<string>>, k: K, user: string) => {
    let s = m.get(k)
    if (!s) m.set(k, (s = new Set()))
    s.add(user)
  }
  const faceUsers: Record<string, Set<string>> = {}
  /** `import { a, b as c } from '../x'` in production code outside x/ uses face x's names a and b. */
  const noteFaceUse = (user: string, spec: ts.Expression, from: ts.SourceFile, names: string[]) => {
    const face = FACE.exec(moduleFile(spec, from) ?? '')?.[1]
    if (!face || isTestFile(user) || !/^(src-main|scripts|bin)\//.test(user) || user.startsWith(`src-main/${face}/`))
      return
    for (const n of names) (faceUsers[face] ??= new Set()).add(n)
  }
  const target = (sym: ts.Symbol | undefined): ts.Symbol | undefined =>
    sym && sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym
  const moduleFile = (spec: ts.Expression, from: ts.SourceFile): string | undefined => {
    const sym = checker.getSymbolAtLocation(spec)
    const decl = sym?.valueDeclaration ?? sym?.declarations?.[0]
    if (decl && ts.isSourceFile(decl)) return relOf(decl.fileName)
    if (ts.isStringLiteralLike(spec) && spec.text.startsWith('.'))
      return relOf(resolve(dirname(from.fileName), spec.text))
    return undefined
  }

  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || sf.fileName.includes('/node_modules/')) continue
    const user = relOf(sf.fileName)
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && node.importClause) {
        const { name, namedBindings } = node.importClause
        const named = namedBindings && ts.isNamedImports(namedBindings) ? namedBindings.elements : []
        noteFaceUse(user, node.moduleSpecifier, sf, [
          ...(name ? ['default'] : []),
          ...named.map((el) => (el.propertyName ?? el.name).text)
        ])
        if (name) {
          const t = target(checker.getSymbolAtLocation(name))
          if (t) add(users, t, user)
        }
        if (namedBindings && ts.isNamedImports(namedBindings))
          for (const el of namedBindings.elements) {
            const t = target(checker.getSymbolAtLocation(el.name))
            if (t) add(users, t, user)
          }
        if (namedBindings && ts.isNamespaceImport(namedBindings)) {
          const m = moduleFile(node.moduleSpecifier, sf)
          if (m) add(wholeModuleUsers, m, user)
        }
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && node.exportClause) {
        if (ts.isNamedExports(node.exportClause))
          noteFaceUse(
            user,
            node.moduleSpecifier,
            sf,
            node.exportClause.elements.map((el) => (el.propertyName ?? el.name).text)
          )
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [spec] = node.arguments
        const m = spec && moduleFile(spec, sf)
        if (m) add(wholeModuleUsers, m, user)
        // `await import('../handlers')` (a host built in steps) uses the whole face.
        if (spec) noteFaceUse(user, spec, sf, ['*'])
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        const m = moduleFile(node.argument.literal as ts.Expression, sf)
        if (m) add(wholeModuleUsers, m, user)
      }
      ts.forEachChild(node, visit)
    }
    visit(sf)
  }

  const testOnly: string[] = []
  const faces: Record<string, string[]> = {}
  const faceStars: Record<string, string[]> = {}
  let checked = 0
  for (const sf of program.getSourceFiles()) {
    const r = relOf(sf.fileName)
    const face = FACE.exec(r.replace(/\.ts$/, ''))
    const faceSym = face && checker.getSymbolAtLocation(sf)
    if (face && faceSym) {
      faces[face[1]!] = checker.getExportsOfModule(faceSym).map((e) => e.name)
      faceStars[face[1]!] = sf.statements
        .filter((s) => ts.isExportDeclaration(s) && (!s.exportClause || ts.isNamespaceExport(s.exportClause)))
        .map((s) => s.getText(sf))
    }
    if (!isProductionModule(r) || ENTRY_POINTS.has(r)) continue
    const moduleSym = checker.getSymbolAtLocation(sf)
    if (!moduleSym) continue
    for (const exp of checker.getExportsOfModule(moduleSym)) {
      const decl = target(exp)
      // Only what this file declares: a face's re-export is judged at its declaration.
      if (!decl?.declarations?.some((d) => d.getSourceFile() === sf)) continue
      checked++
      const using = new Set([...(users.get(decl) ?? []), ...(wholeModuleUsers.get(r) ?? [])])
      using.delete(r)
      const prod = [...using].some((u) => !isTestFile(u))
      const tests = [...using].some(isTestFile)
      if (tests && !prod) testOnly.push(`${r}#${exp.name}`)
    }
  }
  const usedThroughFaces = Object.fromEntries(Object.entries(faceUsers).map(([f, names]) => [f, [...names].sort()]))
  return { testOnly: testOnly.sort(), checked, faces, faceStars, faceUsers: usedThroughFaces }
}
