/** `plugins.hermes-memory-store` in config.yaml (upstream's key), with upstream defaults. */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { isPlainObject } from '../../../config'

export interface HolographicConfig {
  dbPath: string
  autoExtract: boolean
  defaultTrust: number
  minTrustThreshold: number
  hrrDim: number
  hrrWeight: number
  temporalDecayHalfLife: number
}

const num = (v: unknown, d: number, lo: number, hi: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : d

/** `$HERMES_HOME` / `${HERMES_HOME}` expand to the PROFILE's home, never the process's. */
export function expandDbPath(raw: string, home: string): string {
  const expanded = raw.replace(/\$\{HERMES_HOME\}|\$HERMES_HOME/g, home).replace(/^~(?=$|[\\/])/, homedir())
  return resolve(home, expanded)
}

export function holographicConfig(config: Record<string, unknown> | null | undefined, home: string): HolographicConfig {
  const plugins = isPlainObject(config?.plugins) ? (config!.plugins as Record<string, unknown>) : {}
  const c = isPlainObject(plugins['hermes-memory-store'])
    ? (plugins['hermes-memory-store'] as Record<string, unknown>)
    : {}
  return {
    dbPath:
      typeof c.db_path === 'string' && c.db_path.trim()
        ? expandDbPath(c.db_path.trim(), home)
        : join(home, 'memory_store.db'),
    autoExtract: c.auto_extract === true,
    defaultTrust: num(c.default_trust, 0.5, 0, 1),
    minTrustThreshold: num(c.min_trust_threshold, 0.3, 0, 1),
    hrrDim: Math.floor(num(c.hrr_dim, 1024, 16, 65536)),
    hrrWeight: num(c.hrr_weight, 0.3, 0, 1),
    temporalDecayHalfLife: num(c.temporal_decay_half_life, 0, 0, 1e6)
  }
}
