import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'

const PROFILE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/
let defaultRoot: string | null = null

export function isValidProfileName(name: string): boolean {
  return PROFILE_RE.test(name)
}

/** The Hermes root the host serves; set once at start-up by the host. */
export function setDefaultRoot(root: string | null): void {
  defaultRoot = root ? resolve(root) : null
}

export function getDefaultRoot(): string {
  if (defaultRoot) return defaultRoot
  const env = process.env.HERMES_HOME
  if (env) {
    const home = resolve(env)
    // <root>/profiles/<name> → <root> (hermes-spec §1.1 get_default_hermes_root)
    if (basename(dirname(home)) === 'profiles' && isValidProfileName(basename(home))) return dirname(dirname(home))
    return home
  }
  return join(homedir(), '.hermes')
}

export function profileHome(root: string, profile: string): string {
  return profile === 'default' ? resolve(root) : join(resolve(root), 'profiles', profile)
}

/** Normalized identity of a home directory (realpath when it exists). */
export function homeKey(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // not there yet, or not resolvable: the path as written still names it
    return resolve(path)
  }
}

/** `default`, the named profile, or null when the path is not a profile home under the root. */
export function profileNameForHome(home: string, root: string = getDefaultRoot()): string | null {
  const key = homeKey(home)
  const rootKey = homeKey(root)
  if (key === rootKey) return 'default'
  const parent = dirname(key)
  const name = basename(key)
  if (basename(parent) === 'profiles' && dirname(parent) === rootKey && isValidProfileName(name)) return name
  return null
}
