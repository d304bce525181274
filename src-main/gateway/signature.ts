/**
 * Agent config signature (hermes-spec §3.2): a cached agent is reused only while everything it was built
 * from is unchanged. The reasoning config is deliberately NOT part of it — it is set per turn on the
 * cached agent, so changing it must not cost a rebuild (and a cold prompt cache).
 */
import { createHash } from 'node:crypto'
import { stableJson } from './stable-json'

interface SignatureRuntime {
  apiKey?: string | null
  baseUrl?: string | null
  provider?: string | null
  requestedProvider?: string | null
  apiMode?: string | null
  capabilities?: Record<string, unknown> | null
}

export interface SignatureInput {
  model: string
  runtime: SignatureRuntime
  enabledToolsets?: readonly string[] | null
  ephemeralPrompt?: string | null
  /** From `extractCacheBustingConfig`; absent ≡ null ≡ {}. */
  cacheKeys?: Record<string, unknown> | null
  userId?: string | number | null
  userIdAlt?: string | number | null
  skipContextFiles?: boolean
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
// The key hash is recomputed only when the key changes (the hit path runs it every turn).
let lastKey: string | null = null
let lastKeyHash = ''
const keyHash = (k: string) => (k === lastKey ? lastKeyHash : ((lastKey = k), (lastKeyHash = sha256(k))))
const sortedItems = (o: Record<string, unknown> | null | undefined) =>
  Object.keys(o ?? {})
    .sort()
    .map((k) => [k, (o as Record<string, unknown>)[k]])

export function agentConfigSignature(input: SignatureInput): string {
  const rt = input.runtime ?? {}
  const parts = [
    input.model,
    // The FULL key, hashed: JWT-style tokens share long prefixes, so a prefix would collide across accounts.
    keyHash(rt.apiKey ?? ''),
    rt.baseUrl ?? '',
    rt.provider ?? null,
    rt.requestedProvider ?? null,
    rt.apiMode ?? null,
    sortedItems(rt.capabilities),
    [...(input.enabledToolsets ?? [])].sort(),
    input.ephemeralPrompt ?? '',
    sortedItems(input.cacheKeys),
    // Always present (empty when absent): a shared thread must never reuse one user's agent for another.
    String(input.userId ?? ''),
    String(input.userIdAlt ?? ''),
    Boolean(input.skipContextFiles)
  ]
  return sha256(stableJson(parts)).slice(0, 16)
}

/** What one turn may bring on top of the profile: a caller's system text, a job's model / provider / endpoint. */
export interface TurnOverrides {
  ephemeralPrompt?: string | null
  model?: string | null
  provider?: string | null
  baseUrl?: string | null
  /** A turn's own toolsets (JSON) and working directory. */
  toolsets?: string | null
  cwd?: string | null
  /** A caller's long-term memory scope (the API server's X-Hermes-Session-Key): memory providers are built with it. */
  memoryKey?: string | null
  /** The runtime the overrides resolved to: its key (hashed) may differ while the profile's does not. */
  runtime?: SignatureRuntime | null
}

/**
 * The signature for a turn with overrides. The profile part is memoized without them (most turns have
 * none); folding the present ones in here changes the signature exactly when they do (spec §3.2: model,
 * provider, base_url and the ephemeral prompt are all signature inputs).
 */
export function withTurnOverrides(signature: string, o: TurnOverrides): string {
  const { runtime, ...texts } = o
  const present: unknown[] = Object.entries(texts)
    .filter(([, v]) => typeof v === 'string' && v !== '')
    .sort(([a], [b]) => a.localeCompare(b))
  if (runtime)
    present.push([
      'runtime',
      keyHash(runtime.apiKey ?? ''),
      runtime.baseUrl ?? '',
      runtime.provider ?? null,
      runtime.apiMode ?? null
    ])
  return present.length ? sha256(stableJson([signature, present])).slice(0, 16) : signature
}
