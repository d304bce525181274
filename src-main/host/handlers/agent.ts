import { CaduceusError } from '@shared/contract'
import { readSettings, writeSettings } from '../../config'
import type { SecretVault } from '../../secrets'
import { TURN_CHANNELS, type Gateway } from '../../gateway'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'

type AgentHandlers = Pick<
  HandlerMap,
  | 'sessions.resume'
  | 'sessions.start'
  | 'turns.stop'
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
      // The app stops its own chat's turns; an API request or a cron run shown on a session page ends where it began
      // (the API server stops its runs through the same gateway.stop, with its own checks).
      const channel = gateway.channelOf(turnId)
      if (channel && channel !== TURN_CHANNELS.desk)
        throw new CaduceusError(
          'conflict',
          `This is a ${channel.capability.platform} turn; it can only be stopped where it started.`,
          'turnId'
        )
      if (!gateway.stop(turnId)) throw new CaduceusError('not_found', `No running turn '${turnId}'`, 'turnId')
      return { ok: true as const }
    },
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
