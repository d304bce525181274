/**
 * `plugins.hermes-memory-store` in config.yaml (upstream's key), read the way upstream's plugin reads it:
 * each number goes through Python's `float()` / `int()` and `auto_extract` through Python's truth value.
 * Upstream's `hermes memory setup` saves every answer as a STRING (`hrr_dim: '512'`, `auto_extract: 'false'`),
 * so strings must count: a default instead of the user's `'512'` puts 1024-wide vectors in a 512-wide store.
 * A value Python cannot convert makes upstream's initialize fail; here it is a `HolographicConfigError` the
 * provider raises at initialize (the Memory page's health shows it), never a silent default.
 */
import { isAbsolute, join, resolve } from 'node:path'
import {
  pyFloatError,
  pyFloatValue,
  pyIntError,
  pyIntValue,
  pyRepr,
  pyTruthy,
  pyTypeName
} from '@shared/contract/py-text'
import { isPlainObject } from '../../../config'
import { expandUser } from './expand-user'

export interface HolographicConfig {
  dbPath: string
  autoExtract: boolean
  defaultTrust: number
  minTrustThreshold: number
  hrrDim: number
  hrrWeight: number
  temporalDecayHalfLife: number
}

class HolographicConfigError extends Error {}

const KEY = 'plugins.hermes-memory-store'
// Widths Caduceus will encode. Upstream has no bound; outside this range it refuses rather than clamping,
// because a clamped width is a different width from the one upstream writes into the same file.
const MAX_DIM = 65536

/** Python's `float(v)` for a YAML value: numbers and bools as they are, strings in float()'s own syntax. */
function pyFloat(v: unknown, key: string): number {
  const f = pyFloatValue(v)
  if (f !== null) return f
  throw new HolographicConfigError(`${KEY}.${key}: ${pyFloatError(v)}`)
}

/** Python's `int(v)`: a float truncates toward zero, a string must be a base-10 integer ('512.0' is an error). */
function pyInt(v: unknown, key: string): number {
  const n = pyIntValue(v)
  if (n !== null) return n
  throw new HolographicConfigError(`${KEY}.${key}: ${pyIntError(v)}`)
}

/**
 * The store's file as upstream's plugin finds it: the section is read straight from config.yaml (its own
 * `yaml.safe_load`, so no `${VAR}` is expanded there: config/load-config keeps this section literal), then only
 * `$HERMES_HOME` / `${HERMES_HOME}` become the PROFILE's home and a leading `~` or `~NAME` a user's home (its store
 * takes `Path(db_path).expanduser()`, which raises for a NAME the system does not know). Anything else stays
 * as written: `${HOME}/facts.db` is a relative path to upstream, opened under a folder literally named `${HOME}` in
 * whatever folder upstream was started from. Caduceus cannot know that folder, so a path still relative after
 * those expansions is refused rather than resolved somewhere upstream would not look.
 */
function dbPathOf(c: Record<string, unknown>, home: string): string {
  const raw = c.db_path
  // `config.get("db_path", default)` is None for `db_path:` with no value, and the store takes None as its default.
  if (raw === undefined || raw === null) return join(home, 'memory_store.db')
  if (typeof raw !== 'string')
    throw new HolographicConfigError(
      `${KEY}.db_path: expected str, bytes or os.PathLike object, not ${pyTypeName(raw)}`
    )
  let expanded = raw.replace(/\$\{HERMES_HOME\}|\$HERMES_HOME/g, home)
  try {
    expanded = expandUser(expanded)
  } catch (err) {
    throw new HolographicConfigError(`${KEY}.db_path: ${pyRepr(raw)}: ${(err as Error).message}`)
  }
  if (!isAbsolute(expanded))
    throw new HolographicConfigError(
      `${KEY}.db_path: ${pyRepr(raw)} is a relative path: upstream Hermes expands only $HERMES_HOME, \${HERMES_HOME} ` +
        `and a leading ~ or ~NAME here and opens the rest relative to the folder it was started from, so Caduceus cannot ` +
        `tell which file it uses. Write an absolute path, or one that starts with ~/ or $HERMES_HOME/.`
    )
  return resolve(expanded)
}

function section(config: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const plugins = isPlainObject(config?.plugins) ? (config!.plugins as Record<string, unknown>) : {}
  return isPlainObject(plugins['hermes-memory-store'])
    ? (plugins['hermes-memory-store'] as Record<string, unknown>)
    : {}
}

/**
 * The store's file alone (identity, backups), readable even when a number in the section is not; null when db_path
 * itself names no file Caduceus can share with upstream (holographicConfig says why).
 */
export function holographicDbPath(config: Record<string, unknown> | null | undefined, home: string): string | null {
  try {
    return dbPathOf(section(config), home)
  } catch {
    return null // a db_path that names no shareable file: initialize and the picker say why (holographicConfig)
  }
}

/**
 * The whole section with upstream's defaults (`dict.get(key, default)`: a key present with a null value is
 * None, which float()/int() refuse). Throws `HolographicConfigError` where upstream's conversion raises.
 */
export function holographicConfig(config: Record<string, unknown> | null | undefined, home: string): HolographicConfig {
  const c = section(config)
  const get = (key: string, d: unknown) => (key in c ? c[key] : d)
  const hrrDim = pyInt(get('hrr_dim', 1024), 'hrr_dim')
  if (hrrDim < 1 || hrrDim > MAX_DIM)
    throw new HolographicConfigError(`${KEY}.hrr_dim: ${hrrDim} is outside the widths Caduceus encodes (1–${MAX_DIM})`)
  return {
    dbPath: dbPathOf(c, home),
    // `if not config.get("auto_extract", False)`: Python's truth value, so any non-empty string (even 'false',
    // which upstream's setup wizard writes) turns extraction on, exactly as it does upstream.
    autoExtract: pyTruthy(c.auto_extract),
    defaultTrust: pyFloat(get('default_trust', 0.5), 'default_trust'),
    minTrustThreshold: pyFloat(get('min_trust_threshold', 0.3), 'min_trust_threshold'),
    hrrDim,
    hrrWeight: pyFloat(get('hrr_weight', 0.3), 'hrr_weight'),
    temporalDecayHalfLife: pyInt(get('temporal_decay_half_life', 0), 'temporal_decay_half_life')
  }
}
