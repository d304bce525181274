// A served profile whose config.yaml (or .env) cannot be read, said on stderr when a long-running command starts (and in the
// log `caduceus logs errors` reads), as upstream's own load warns: its settings are not the defaults a read would
// otherwise stand in with, and its turns are refused until the file is fixed. Nothing is written to the profile.
import { configProblem } from '../../config'
import { envFileProblem } from '../../secrets'
import type { Host } from '../compose'

export function warnUnreadableConfigs(host: Pick<Host, 'stores' | 'log'>, only?: string): void {
  for (const e of host.stores.list()) {
    if (only !== undefined && e.name !== only) continue
    const problem = configProblem(e.home)
    const env = envFileProblem(e.home) // says itself that turns are refused
    const texts = [
      ...(problem ? [`profile ${e.name}: ${problem.message} (its turns are refused until the file is fixed)`] : []),
      ...(env ? [`profile ${e.name}: ${env}`] : [])
    ]
    for (const text of texts) {
      host.log.warn('config', text)
      console.error(`caduceus: warning: ${text}`)
    }
  }
}
