import { CaduceusError } from '@shared/contract'
import { readSettings, writeSettings } from '../../config'
import type { SecretVault } from '../../secrets'
import type { Gateway } from '../../gateway'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'

type AgentHandlers = Pick<
  HandlerMap,
  | 'sessions.resume'
  | 'sessions.start'
  | 'turns.stop'
  | 'turns.active'
  | 'gateway.state'
  | 'gateway.evict'
  | 'settings.get'
  | 'settings.update'
>

export function agentHandlers(s: Services, gateway: Gateway, vault: SecretVault): AgentHandlers {
  return {
    'sessions.resume': (input) => gateway.resume(input),
    'sessions.start': (input) => gateway.start(input),
    'turns.stop': ({ turnId }) => {
      // The app's Stop ends its own chat's turns only (the API server stops its runs through gateway.stop).
      if (!gateway.stopDeskTurn(turnId)) throw new CaduceusError('not_found', `No running turn '${turnId}'`, 'turnId')
      return { ok: true as const }
    },
    // queued text as the turn.queued event showed it (events are redacted on the bus; this answer is not an event)
    'turns.active': ({ known }) => vault.mask.redactDeep(gateway.activeTurns(known)),
    'gateway.state': () => gateway.state(),
    'gateway.evict': ({ key }) => ({ evicted: gateway.evict(key) }),
    'settings.get': ({ profile }) => readSettings(s.homeOf(profile), { profile, vault }),
    'settings.update': ({ profile, ...patch }) => {
      const settings = writeSettings(s.homeOf(profile), patch, { profile, vault })
      // Cached agents notice the new key/model through their signature on the next turn; tell the UI now.
      s.bus.emit('gateway.changed', { reason: 'settings' })
      return settings
    }
  }
}
