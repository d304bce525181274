// The packaging config is checked offline with electron-builder's own validator (its JSON schema and deprecation
// rules): no Electron download can run on these machines, so this is the part of `npm run dist` we can prove here.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
const require = createRequire(import.meta.url)
const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
  validateConfiguration: (config: unknown, logger: unknown) => Promise<void>
}
const { DebugLogger } = require('builder-util/out/DebugLogger') as { DebugLogger: new (enabled: boolean) => unknown }
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as Record<string, any>
const validate = (c: unknown) => validateConfiguration(c, new DebugLogger(false))

describe('packaging (electron-builder.yml)', () => {
  it("passes electron-builder's own configuration schema", async () => {
    await expect(validate(config)).resolves.toBeUndefined()
  })

  it('the validator is real: an unknown key and a wrong type are refused', async () => {
    await expect(validate({ ...config, notAnOption: true })).rejects.toThrow(/notAnOption/)
    await expect(validate({ ...config, asar: 'yes please' })).rejects.toThrow(/asar/)
  })

  it('declares an appId, targets for every desktop platform and the security fuses', () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/)
    expect(config.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']))
    expect(config.mac.target).toContain('dmg')
    expect(config.win.target).toContain('nsis')
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true
    })
  })

  it('ships the icons it names, and the window icon the main process loads', () => {
    expect(existsSync(join(root, config.icon))).toBe(true)
    const png = readFileSync(join(root, 'resources/icon.png'))
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(512) // width: mac and Linux want ≥ 512 px
    const main = readFileSync(join(root, 'src-main/index.ts'), 'utf8')
    const icon = /icon\s*=\s*join\(import\.meta\.dirname,\s*'([^']+)'\)/.exec(main)?.[1]
    expect(icon && existsSync(resolve(root, 'out/main', icon))).toBe(true)
    expect(config.files).toContain('resources/icon.png')
  })
})
