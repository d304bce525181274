// Every package the headless host or the tests load must accept the Node this machine runs (`caduceus serve`
// runs on plain Node, not Electron's). Electron's launcher and its download helpers are exempt: they only run
// where an Electron binary is fetched, on the Node Electron brings.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
const exempt = (name: string) =>
  name === 'electron' || name.startsWith('@electron/') || name.startsWith('@electron-internal/')

function installed(dir: string, out: { name: string; version: string; node: string }[] = []) {
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith('.')) continue
    const p = join(dir, entry)
    if (entry.startsWith('@')) {
      installed(p, out)
      continue
    }
    const manifest = join(p, 'package.json')
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'))
      if (typeof pkg.engines?.node === 'string')
        out.push({ name: pkg.name, version: pkg.version, node: pkg.engines.node })
    }
    installed(join(p, 'node_modules'), out)
  }
  return out
}

describe('engines', () => {
  it(`no installed package refuses Node ${process.version} (Electron's launcher exempt)`, () => {
    const all = installed(join(root, 'node_modules'))
    expect(all.length).toBeGreaterThan(20) // the walk really found manifests
    const refusing = all
      .filter((p) => !exempt(p.name) && !semver.satisfies(process.version, p.node, { includePrerelease: true }))
      .map((p) => `${p.name}@${p.version} wants node ${p.node}`)
    expect(refusing).toEqual([])
  })

  it('declares the Node it needs, and this machine meets it', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(semver.validRange(pkg.engines.node)).toBeTruthy()
    expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true)
  })
})
