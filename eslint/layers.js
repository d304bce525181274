// ESLint rule `caduceus/layers`: the layer table in CONTRIBUTING.md is the source of truth. Each row names a folder
// and what it may import; this rule parses that table and checks every import, re-export, dynamic import and
// require() of every linted file against it, resolving relative paths and the `@shared` alias first.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]))
/** Packages that only make sense in the main process: a renderer importing them is a layering bug. */
const MAIN_ONLY = [
  'electron',
  'better-sqlite3',
  'drizzle-orm',
  'ws',
  'yaml',
  'openai',
  '@anthropic-ai/sdk',
  'tsx',
  '@pydantic/genai-prices'
]

/** Rows of the table: `src-main/agent/` → { kind: 'subsystem', name: 'agent', may: ['store', …] }. */
export function parseLayerTable(markdown) {
  const rows = markdown.split('\n').filter((l) => /^\|\s*`/.test(l))
  const layers = new Map()
  const subsystems = []
  for (const row of rows) {
    const [folderCell, , mayCell] = row
      .split('|')
      .slice(1)
      .map((c) => c.trim())
    const folders = [...folderCell.matchAll(/`([^`]+)`/g)].map((m) => m[1])
    const may = [...mayCell.matchAll(/`([^`]+)`/g)].map((m) => m[1])
    const everything = /everything/.test(mayCell)
    // `src-main/index.ts`, `preload.ts`: a bare name shares the directory of the cell's first path.
    const base = folders[0]?.includes('/') ? folders[0].slice(0, folders[0].lastIndexOf('/') + 1) : ''
    for (const bare of folders) {
      const folder = bare.includes('/') ? bare : base + bare
      const m = /^src-main\/([a-z-]+)\/$/.exec(folder)
      if (m) subsystems.push(m[1])
      layers.set(folder, { may, everything })
    }
  }
  return { layers, subsystems }
}

const table = parseLayerTable(readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8'))

/** Which layer a repo-relative path belongs to, or null when the table does not govern it. */
function layerOf(rel) {
  const parts = rel.split(sep).join('/').split('/')
  if (parts[0] === 'shared' && parts[1] === 'contract') return { kind: 'contract', key: 'shared/contract/' }
  if (parts[0] === 'src-renderer') return { kind: 'renderer', key: 'src-renderer/' }
  if (parts[0] !== 'src-main') return null
  if (parts.length === 2) return { kind: 'electron-entry', key: `src-main/${parts[1]}`, file: parts[1] }
  return { kind: 'subsystem', key: `src-main/${parts[1]}/`, name: parts[1], inner: parts.slice(2).join('/') }
}

function resolveSpecifier(spec, fromFile) {
  if (spec.startsWith('.')) return { local: resolve(dirname(fromFile), spec) }
  if (spec === '@shared' || spec.startsWith('@shared/'))
    return { local: join(root, 'shared', spec.slice('@shared'.length)) }
  return { pkg: spec }
}

/** host/ is split by job: `host/<job>/` when `<job>` is one of its folders, else null (host/index.ts, a file). */
function hostJob(inner) {
  const seg = inner.split('/')[0]
  if (!seg) return null
  const dir = join(root, 'src-main/host', seg)
  return existsSync(dir) && statSync(dir).isDirectory() ? seg : null
}

/** Inside host/, one job folder reaches another only through its face, in the direction the "Inside host/" table allows. */
function hostJobViolation(fromInner, toInner, spec) {
  const from = fromInner.includes('/') ? hostJob(fromInner) : null
  const to = hostJob(toInner)
  if (!to || to === from) return null
  if (toInner !== to && toInner !== `${to}/index` && toInner !== `${to}/index.ts`)
    return `import host/${to}/ through its index.ts face, not '${spec}'`
  if (!from) return null // host/index.ts, the host's own face
  const row = table.layers.get(`host/${from}/`)
  if (!row)
    return `host/${from}/ is not in the "Inside host/" table in CONTRIBUTING.md: add a row saying what it may import`
  return row.may.includes(to)
    ? null
    : `host/${from}/ may not import host/${to}/ (allowed: ${row.may.join(', ') || 'none'})`
}

const isTestFile = (rel) =>
  /\.test\.tsx?$/.test(rel) || rel.includes('/test-fixtures/') || /test-support\.ts$/.test(rel)

/** The reason `spec` may not be imported from `file`, or null when the table allows it. */
export function violation(file, spec) {
  const rel = relative(root, file).split(sep).join('/')
  const from = layerOf(rel)
  if (!from) return null
  const target = resolveSpecifier(spec, file)
  const pkgName =
    target.pkg && (target.pkg.startsWith('@') ? target.pkg.split('/').slice(0, 2).join('/') : target.pkg.split('/')[0])

  if (from.kind === 'contract') {
    if (target.pkg)
      return pkgName === 'zod' || (pkgName === 'vitest' && isTestFile(rel))
        ? null
        : `the contract may import only zod (got '${spec}')`
    return relative(join(root, 'shared/contract'), target.local).startsWith('..')
      ? `the contract may import only itself (got '${spec}')`
      : null
  }
  if (from.kind === 'renderer') {
    if (target.pkg) {
      if (isTestFile(rel)) return null // renderer tests run under Node (e.g. a real ws server)
      if (BUILTINS.has(target.pkg) || BUILTINS.has(pkgName)) return `the renderer has no Node: '${spec}'`
      return MAIN_ONLY.includes(pkgName) ? `'${spec}' belongs to the main process, not the renderer` : null
    }
    const to = relative(root, target.local).split(sep).join('/')
    return to.startsWith('src-renderer/') || to.startsWith('shared/')
      ? null
      : `the renderer may import only shared/ and its own files (got '${spec}')`
  }
  const row = table.layers.get(from.key)
  if (!row) return `${from.key} is not in the layer table in CONTRIBUTING.md: add a row saying what it may import`
  if (target.pkg) {
    if (pkgName === 'electron')
      return from.kind === 'electron-entry' ? null : `only src-main/index.ts and preload.ts may import electron`
    // A row naming `node:*` (scope/, files/): Node's built-ins and no package (its other entries are folders).
    const nodeOnly = row.may.includes('node:*')
    if (nodeOnly && !BUILTINS.has(target.pkg) && !(pkgName === 'vitest' && isTestFile(rel)))
      return `${from.name} may import only node:* (got '${spec}')`
    return null
  }
  const to = relative(root, target.local).split(sep).join('/')
  if (to.startsWith('shared/'))
    return row.everything || row.may.includes('shared') || from.kind === 'electron-entry'
      ? null
      : `${from.key} may not import shared/`
  if (to.startsWith('src-renderer/')) return `main-process code may not import the renderer ('${spec}')`
  if (!to.startsWith('src-main/')) return null // e2e fixtures, scripts: not layered
  const toParts = to.split('/')
  const toName = toParts.length === 2 ? toParts[1].replace(/\.ts$/, '') : toParts[1]
  if (from.kind === 'subsystem' && toName === from.name)
    return from.name === 'host' && !isTestFile(rel)
      ? hostJobViolation(from.inner, toParts.slice(2).join('/'), spec)
      : null
  if (toParts.length === 2 && (toName === 'index' || toName === 'preload'))
    return `'${spec}' is the Electron entry; nothing imports it`
  const allowed =
    from.kind === 'electron-entry' ? ['host'] : row.everything ? table.subsystems.filter((s) => s !== 'host') : row.may
  // Tests may drive a subsystem through the layers above it (integration harnesses); production code may not.
  if (!allowed.includes(toName) && !isTestFile(rel))
    return `${from.key} may not import src-main/${toName}/ (allowed: ${allowed.join(', ') || 'none'})`
  const inner = toParts.slice(2).join('/')
  // The Electron entry may also reach a host job's face its row names (`host/electron`: the window policy).
  const job = toName === 'host' && from.kind === 'electron-entry' ? hostJob(inner) : null
  if (job && row.may.includes(`host/${job}`) && [job, `${job}/index`, `${job}/index.ts`].includes(inner)) return null
  if (inner !== '' && inner !== 'index' && inner !== 'index.ts' && !isTestFile(rel)) {
    return `import src-main/${toName}/ through its index.ts face, not '${spec}'`
  }
  return null
}

export const layersRule = {
  meta: { type: 'problem', docs: { description: 'imports follow the layer table in CONTRIBUTING.md' }, schema: [] },
  create(context) {
    const file = context.filename
    const check = (node, spec) => {
      if (typeof spec !== 'string') return
      const reason = violation(file, spec)
      if (reason) context.report({ node, message: reason })
    }
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments[0]?.type === 'Literal')
          check(n, n.arguments[0].value)
      }
    }
  }
}
