/**
 * JS memory plugins: `<profile home>/caduceus-plugins/memory/<name>/` (else the root's) holding a
 * `plugin.yaml` manifest and an ES module exporting `createProvider(ctx)`. Loaded in the main process.
 * Upstream's Python plugins (`plugins/memory/`) are a different format and are left alone.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parse } from 'yaml'
import { isPlainObject } from '../../config'
import { getHermesHome } from '../../scope'
import type { MemoryProvider } from '../provider'
import { adaptPlugin, type PluginObject } from './plugin-adapter'
import { ProviderLoadError, type ProviderContext } from './types'
import { errorMessage } from '@shared/contract/errors'

export const PLUGIN_DIR = join('caduceus-plugins', 'memory')
const MAIN_CANDIDATES = ['index.mjs', 'index.js']

export interface PluginManifest {
  name: string
  version: string
  description: string
  hooks: string[]
  main: string
  dir: string
}

/** The folders searched for `name`, most specific first. */
export function pluginDirs(name: string, ctx: Pick<ProviderContext, 'home' | 'root'>): string[] {
  const dirs = [join(ctx.home, PLUGIN_DIR, name)]
  if (ctx.root && ctx.root !== ctx.home) dirs.push(join(ctx.root, PLUGIN_DIR, name))
  return dirs
}

export function findPlugin(name: string, ctx: Pick<ProviderContext, 'home' | 'root'>): string | null {
  return pluginDirs(name, ctx).find((d) => existsSync(join(d, 'plugin.yaml'))) ?? null
}

export function readManifest(dir: string, name: string): PluginManifest {
  const bad = (why: string) =>
    new ProviderLoadError(`Memory plugin '${name}' is invalid: ${why}; continuing without it.`, `${dir}: ${why}`)
  let raw: unknown
  try {
    raw = parse(readFileSync(join(dir, 'plugin.yaml'), 'utf8'))
  } catch (err) {
    throw bad(`plugin.yaml could not be read (${errorMessage(err).split('\n')[0]})`)
  }
  if (!isPlainObject(raw)) throw bad('plugin.yaml is not a mapping')
  const main =
    typeof raw.main === 'string' && raw.main.trim()
      ? raw.main.trim()
      : MAIN_CANDIDATES.find((f) => existsSync(join(dir, f)))
  if (!main || main.includes('..') || !existsSync(join(dir, main)))
    throw bad(`no module to load (set 'main' or add ${MAIN_CANDIDATES.join(' / ')})`)
  return {
    name: typeof raw.name === 'string' ? raw.name : name,
    version: raw.version === undefined ? '' : String(raw.version),
    description: typeof raw.description === 'string' ? raw.description : '',
    hooks: Array.isArray(raw.hooks) ? raw.hooks.filter((h): h is string => typeof h === 'string') : [],
    main,
    dir
  }
}

/** Stamp of a plugin's files: part of the registry generation and the provider identity. */
export function pluginStamp(dir: string, main?: string): string {
  const at = (f: string) => {
    try {
      const s = statSync(join(dir, f))
      return `${s.size}:${s.mtimeMs}`
    } catch {
      return '-' // not there (or not readable): a stamp that changes when it appears
    }
  }
  return `${at('plugin.yaml')}|${main ? at(main) : '-'}`
}

export async function loadPlugin(name: string, dir: string, ctx: ProviderContext): Promise<MemoryProvider> {
  const manifest = readManifest(dir, name)
  const file = join(dir, manifest.main)
  let mod: Record<string, unknown>
  try {
    // The stamp in the URL re-imports an edited plugin instead of serving the first version forever.
    mod = await import(`${pathToFileURL(file).href}?v=${encodeURIComponent(pluginStamp(dir, manifest.main))}`)
  } catch (err) {
    throw new ProviderLoadError(
      `Memory plugin '${name}' failed to load; continuing without it.`,
      `${file}: ${errorMessage(err)}`
    )
  }
  const create = (mod.createProvider ?? (mod.default as Record<string, unknown> | undefined)?.createProvider) as unknown
  if (typeof create !== 'function') {
    throw new ProviderLoadError(
      `Memory plugin '${name}' is invalid: its module does not export createProvider(ctx); continuing without it.`,
      file
    )
  }
  let obj: unknown
  try {
    obj = await (create as (c: unknown) => unknown)({
      name,
      hermesHome: ctx.home,
      profile: ctx.profile,
      pluginDir: dir,
      manifest,
      config:
        isPlainObject(ctx.config?.plugins) && isPlainObject((ctx.config!.plugins as Record<string, unknown>)[name])
          ? (ctx.config!.plugins as Record<string, unknown>)[name]
          : {},
      secret: (key: string) => ctx.secrets[key],
      // The home of the profile whose turn is running now (upstream `get_hermes_home()`).
      currentHome: () => getHermesHome()
    })
  } catch (err) {
    throw new ProviderLoadError(
      `Memory plugin '${name}' failed to start; continuing without it.`,
      `${file}: createProvider threw: ${errorMessage(err)}`
    )
  }
  if (!obj || typeof obj !== 'object' || typeof (obj as PluginObject).getToolSchemas !== 'function') {
    throw new ProviderLoadError(
      `Memory plugin '${name}' is invalid: createProvider(ctx) must return an object with getToolSchemas(); continuing without it.`,
      file
    )
  }
  return adaptPlugin(obj as PluginObject, name)
}
