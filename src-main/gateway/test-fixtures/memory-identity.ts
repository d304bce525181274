/**
 * A MemoryIdentitySource over a provider loader (the host's real one is host/memory-providers.ts): the cache-busting
 * tests drive the signature with it.
 */
import { isPlainObject } from '../../config'
import type { MemoryIdentitySource } from '../cache-busting'

/** What a memory provider exposes to the signature (MemoryProvider.identitySignature). */
export interface IdentityProvider {
  identitySignature?(): unknown
}

/**
 * Loads each named memory provider ONCE per process and re-asks its identity on every extraction: the
 * instance is memoized, the identity (e.g. a peer name edited in the provider's own config) is not.
 */
export class MemoryIdentityResolver implements MemoryIdentitySource {
  private readonly memo = new Map<string, IdentityProvider | null>()
  constructor(
    private readonly load: (name: string, opts: { registerSkills: false }) => IdentityProvider | null | undefined
  ) {}

  identityFor(name: string): Record<string, unknown> {
    if (!this.memo.has(name)) {
      let p: IdentityProvider | null = null
      try {
        p = this.load(name, { registerSkills: false }) ?? null
      } catch {
        p = null
      }
      this.memo.set(name, p)
    }
    const provider = this.memo.get(name)
    if (!provider || typeof provider.identitySignature !== 'function') return {}
    try {
      const id = provider.identitySignature()
      return isPlainObject(id) ? id : {}
    } catch {
      // A broken hook contributes nothing rather than breaking every turn.
      return {}
    }
  }
}
