/**
 * `delegation.*` settings from the profile's `config.yaml` (hermes-spec §2.8). Read on every use through
 * config/'s loader (re-parsed only when the file changes), so edits while the host runs apply. A missing
 * or malformed file yields the defaults.
 */
import { dirname } from 'node:path'
import { loadConfig, readSection } from '../config'
import type { RetentionLimits } from './types'

const DELEGATION_DEFAULTS = {
  max_retained: 10,
  retained_ttl_hours: 72,
  max_concurrent_children: 3,
  max_spawn_depth: 1,
  subagent_auto_approve: false,
  max_iterations: 50
} as const

export interface DelegationConfig {
  maxRetained: number
  retainedTtlHours: number
  maxConcurrentChildren: number
  maxSpawnDepth: number
  maxIterations: number
}

const num = (v: unknown, fallback: number): number => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : fallback
}

/** Home of a state.db handle: the database lives at `<home>/state.db`. */
export function homeOfDb(dbPath: string): string {
  return dirname(dbPath)
}

export function loadDelegationConfig(home: string): DelegationConfig {
  const d = readSection(loadConfig(home).raw, 'delegation')
  const D = DELEGATION_DEFAULTS
  return {
    maxRetained: Math.trunc(num(d.max_retained, D.max_retained)),
    retainedTtlHours: num(d.retained_ttl_hours, D.retained_ttl_hours),
    maxConcurrentChildren: Math.max(1, Math.trunc(num(d.max_concurrent_children, D.max_concurrent_children))),
    // floor 1, no ceiling (§2.8)
    maxSpawnDepth: Math.max(1, Math.trunc(num(d.max_spawn_depth, D.max_spawn_depth))),
    maxIterations: Math.max(1, Math.trunc(num(d.max_iterations, D.max_iterations)))
  }
}

/** Config-derived retention limits with the config floors (max ≥ 1, ttl ≥ 1 h). */
export function retentionLimits(home: string): RetentionLimits {
  const c = loadDelegationConfig(home)
  return { maxRetained: Math.max(1, c.maxRetained), ttlHours: Math.max(1, c.retainedTtlHours) }
}
