/**
 * Release paths for agents leaving the cache (hermes-spec §3.9). Cache policy only ever uses the soft
 * path; hard `close()` is for session expiry and true boundaries.
 */
import type { CacheableAgent } from './cacheable'
import type { Logger } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'

const LOG = 'gateway.run'

/** Close LLM clients only. Falls back to a hard close only when the agent has no soft path at all. */
export async function releaseSoft(agent: CacheableAgent): Promise<void> {
  if (typeof agent.releaseClients === 'function') await agent.releaseClients()
  else if (typeof agent.close === 'function') await agent.close()
  try {
    // Drop the transcript reference so an evicted agent holds no history in memory.
    if (Array.isArray(agent.sessionMessages)) agent.sessionMessages = []
  } catch {
    // Read-only property on some agent shape: nothing to free.
  }
}

/** Commit memory with the live transcript first, then soft release (LRU cap, idle sweep). */
export async function commitThenReleaseSoft(agent: CacheableAgent, key: string, log: Logger): Promise<void> {
  if (typeof agent.commitMemorySession === 'function') {
    try {
      await agent.commitMemorySession(Array.isArray(agent.sessionMessages) ? agent.sessionMessages : null)
    } catch (err) {
      log.warn(LOG, `memory commit before eviction failed for ${key.slice(0, 48)}: ${errorMessage(err)}`)
    }
  }
  await releaseSoft(agent)
}

export async function releaseHard(agent: CacheableAgent): Promise<void> {
  if (typeof agent.close === 'function') await agent.close()
  else if (typeof agent.releaseClients === 'function') await agent.releaseClients()
}
