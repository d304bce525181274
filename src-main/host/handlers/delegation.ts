import { CaduceusError } from '@shared/contract'
import { loadPricer } from '../../agent'
import { resolveRuntime } from '../../config'
import { secretsFor, type SecretVault } from '../../secrets'
import { runInProfileScope } from '../../scope'
import { costSummary, readPriceOverrides, sessionCost } from '../../costs'
import { estimateFollowUp, followUpRequest, listSubagents, type DelegateDeps } from '../../delegation'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { errorMessage } from '@shared/contract/errors'

type DelegationHandlers = Pick<
  HandlerMap,
  | 'subagents.list'
  | 'subagents.estimate'
  | 'subagents.followUp'
  | 'subagents.tombstone'
  | 'subagents.setSpawnPaused'
  | 'costs.session'
  | 'costs.summary'
>

export function delegationHandlers(
  s: Services,
  deps: (profile: string) => DelegateDeps,
  vault: SecretVault
): DelegationHandlers {
  // Cross-profile views serve the profiles that open and name the ones that do not.
  const served = <T extends object>(run: (stores: ReturnType<typeof s.stores.healthy>['stores']) => T): T => {
    const { stores, unavailable } = s.stores.healthy()
    const out = run(stores)
    return unavailable.length ? { ...out, unavailable } : out
  }
  // The live-subagent registry is host-wide (every profile's deps share one): reached through a profile that opens,
  // so an unreadable state.db — the default profile's too — does not fail the whole Subagents page or its switch.
  const live = () => deps(s.stores.healthy().stores[0]?.profile ?? 'default').live
  // A named profile must exist (as for sessions.list): an empty list would read as "no subagents, no spend".
  const knownScope = (profile: string | undefined) => {
    if (profile && profile !== 'all') s.homeOf(profile)
  }
  const retained = (profile: string, childId: string) => {
    const entry = deps(profile).registry.findRetainedChild(childId)
    if (!entry)
      throw new CaduceusError('not_found', `No retained subagent '${childId}' in profile '${profile}'`, 'childId')
    return entry
  }
  const emitUpdate = (profile: string, delegationId: string, parentSessionId: string | null) =>
    s.bus.emit('delegation.updated', { profile, delegationId, parentSessionId })

  return {
    'subagents.list': async (q) => {
      knownScope(q.profile)
      // Prune first (upstream list_retained_children does): a child past its TTL must not be offered as retained.
      for (const e of s.stores.list()) {
        if (q.profile && q.profile !== 'all' && q.profile !== e.name) continue
        try {
          await deps(e.name).registry.pruneRetainedChildren()
        } catch (err) {
          s.log.warn('delegation', `pruning retained subagents of ${e.name} failed: ${errorMessage(err)}`)
        }
      }
      return served((stores) => listSubagents(stores, q, live(), readPriceOverrides(s.root)))
    },
    // Upstream's kill switch (the TUI's `delegation.pause`): the registry is host-wide, like upstream's per process.
    'subagents.setSpawnPaused': ({ paused }) => {
      const registry = live()
      registry.setSpawnPaused(paused)
      s.log.info('delegation', `spawning new subagents ${paused ? 'paused' : 'resumed'}`)
      return { paused: registry.isSpawnPaused() }
    },
    'subagents.estimate': async ({ profile, childId }) => {
      const priceCall = await loadPricer()
      const entry = retained(profile, childId)
      const home = s.homeOf(profile)
      const rt = resolveRuntime(home, { vault })
      const route = { provider: rt.provider, baseUrl: rt.baseUrl, model: entry.model || rt.model }
      return estimateFollowUp(
        s.stores.get(profile),
        entry.childSessionId,
        (inputTokens) =>
          priceCall(route, {
            inputTokens,
            outputTokens: 0,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0
          }).costUsd
      )
    },
    'subagents.followUp': async ({ profile, childId, text, requesterSessionId }) => {
      const d = deps(profile)
      const home = s.homeOf(profile)
      // The UI acts inside the profile it names: authority, the child's turn and its memory all see that scope.
      // The child's reply streams to the dialog that sent it while the turn runs.
      const onText = (t: string) => s.bus.emit('subagents.followUpDelta', { profile, childId, text: t })
      const result = await runInProfileScope(home, secretsFor(home, vault), () =>
        followUpRequest(d, { childId, text, requesterSessionId }, onText)
      )
      const entry = d.registry.findRetainedChild(childId)
      if (entry) emitUpdate(profile, entry.delegationId, entry.parentSessionId || null)
      return result
    },
    'subagents.tombstone': async ({ profile, childId }) => {
      const d = deps(profile)
      const entry = d.registry.findRetainedChild(childId)
      const tombstoned = await d.registry.tombstoneRetainedChild(childId)
      if (tombstoned && entry) emitUpdate(profile, entry.delegationId, entry.parentSessionId || null)
      return { tombstoned }
    },
    'costs.session': ({ profile, sessionId }) =>
      sessionCost(s.stores.get(profile), profile, sessionId, readPriceOverrides(s.root)),
    'costs.summary': (q) => {
      knownScope(q.profile)
      return served((stores) => costSummary(stores, q, undefined, readPriceOverrides(s.root)))
    }
  }
}
