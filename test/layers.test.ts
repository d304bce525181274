// Enforces the layer table in CONTRIBUTING.md by reading the import graph.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve, dirname, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
const SUBSYSTEMS = [
  'scope',
  'store',
  'config',
  'agent',
  'gateway',
  'delegation',
  'memory',
  'tools',
  'channels',
  'cron',
  'host'
]

function files(dir: string): string[] {
  const abs = join(root, dir)
  return readdirSync(abs).flatMap((name) => {
    const p = join(abs, name)
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : files(relative(root, p))
    return /\.(ts|tsx)$/.test(name) ? [relative(root, p)] : []
  })
}

function imports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2]!
  )
}

// Same test-code set as the ESLint layer rule (eslint/layers.js): test files, test-fixtures/ and test-support.ts.
const isTest = (f: string) =>
  /\.test\.tsx?$/.test(f) || f.includes(`${sep}test-fixtures${sep}`) || /test-support\.ts$/.test(f)

describe('layers', () => {
  it('the renderer imports only shared/ and its own files', () => {
    const bad = files('src-renderer').flatMap((f) =>
      imports(f)
        .filter((s) => s.startsWith('node:') || s === 'electron' || s.includes('src-main'))
        .map((s) => `${f} → ${s}`)
    )
    expect(bad).toEqual([])
  })

  it('the contract imports only zod and itself', () => {
    const bad = files('shared/contract').flatMap((f) =>
      imports(f)
        .filter((s) => !(s === 'zod' || s.startsWith('./') || s === 'vitest'))
        .map((s) => `${f} → ${s}`)
    )
    expect(bad).toEqual([])
  })

  it('no service folder imports electron', () => {
    const bad = SUBSYSTEMS.flatMap((d) => files(`src-main/${d}`)).flatMap((f) =>
      imports(f)
        .filter((s) => s === 'electron' || s.startsWith('electron/'))
        .map((s) => `${f} → ${s}`)
    )
    expect(bad).toEqual([])
  })

  it('subsystems reach each other only through index.ts', () => {
    const bad: string[] = []
    for (const sub of SUBSYSTEMS) {
      for (const f of files(`src-main/${sub}`)) {
        if (isTest(f)) continue
        for (const spec of imports(f)) {
          if (!spec.startsWith('.')) continue
          const target = relative(join(root, 'src-main'), resolve(dirname(join(root, f)), spec))
          const [targetSub, ...rest] = target.split(sep)
          if (!targetSub || targetSub === sub || !SUBSYSTEMS.includes(targetSub)) continue
          const viaIndex = rest.length === 0 || (rest.length === 1 && rest[0] === 'index')
          if (!viaIndex) bad.push(`${f} → ${spec}`)
        }
      }
    }
    expect(bad).toEqual([])
  })
})
