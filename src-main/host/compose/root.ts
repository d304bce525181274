import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { isValidProfileName } from '../../scope'

/** The app's folder (the one holding package.json): host code runs from src-main/host/<job>/ or from out/main/. */
export function appDir(): string {
  let dir = import.meta.dirname
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir)
  return dir
}

/** The app's version (package.json), read when asked (a module-level read would run for every importer). */
export function appVersion(): string {
  try {
    return JSON.parse(readFileSync(join(appDir(), 'package.json'), 'utf8')).version
  } catch {
    // no readable package.json beside the code (a bare test bundle): a version that is plainly none
    return '0.0.0'
  }
}

/** Per-user data folder for Caduceus itself (logs, its own default Hermes root). */
export function appDataDir(): string {
  if (process.env.CADUCEUS_DATA_DIR) return resolve(process.env.CADUCEUS_DATA_DIR)
  if (process.platform === 'win32')
    return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Caduceus')
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Caduceus')
  return join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'caduceus')
}

/**
 * The Hermes root to serve: `--home DIR`, else `$HERMES_HOME`, else `~/.hermes` if it exists, else the app's
 * own data folder (so a first run never writes into a home the user did not choose). A home that is a profile's
 * folder, `<root>/profiles/<name>` (upstream's service units and `hermes -p` set HERMES_HOME so), serves `<root>`
 * with `profile` naming it, as upstream's get_default_hermes_root reads it (hermes-spec §1.1): the profile keeps its
 * own name and its siblings stay in view, rather than it passing for a root of its own called `default`.
 */
export function resolveRoot(explicit?: string | null): {
  root: string
  reason: 'flag' | 'env' | 'dot-hermes' | 'app-data'
  profile?: string
} {
  if (explicit) return { ...splitProfileHome(resolve(explicit)), reason: 'flag' }
  if (process.env.HERMES_HOME) return { ...splitProfileHome(resolve(process.env.HERMES_HOME)), reason: 'env' }
  const dot = join(homedir(), '.hermes')
  if (existsSync(dot)) return { root: dot, reason: 'dot-hermes' }
  return { root: join(appDataDir(), 'hermes'), reason: 'app-data' }
}

function splitProfileHome(home: string): { root: string; profile?: string } {
  const name = basename(home)
  if (basename(dirname(home)) !== 'profiles' || name === 'default' || !isValidProfileName(name)) return { root: home }
  return { root: dirname(dirname(home)), profile: name }
}

export function logPaths(): { logFile: string; errorFile: string } {
  const dir = process.env.CADUCEUS_LOG_DIR ? resolve(process.env.CADUCEUS_LOG_DIR) : join(appDataDir(), 'logs')
  return { logFile: join(dir, 'caduceus.log'), errorFile: join(dir, 'errors.log') }
}
