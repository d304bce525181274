/**
 * A host on a fresh temp home for API-server tests: its config.yaml runs the scripted provider at `baseUrl` (plus
 * `extraConfig` YAML), its `.env` holds the server's key (and port 0), and the host logs into the home.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHost, type Host } from '../../host'
import { createLogger } from '../../host/log/log'

export async function apiHostHome(opts: {
  prefix: string
  baseUrl: string
  key: string
  extraConfig?: string
  /** Files to write into the home before the host starts (SOUL.md, plugins…), by relative path. */
  before?: (root: string) => void
}): Promise<{ root: string; host: Host }> {
  const root = mkdtempSync(join(tmpdir(), opts.prefix))
  writeFileSync(
    join(root, 'config.yaml'),
    `model:\n  default: m\n  provider: custom\n  base_url: ${opts.baseUrl}\n${opts.extraConfig ?? ''}`
  )
  // Port 0: the Gateway page's switch would otherwise take 8642, which a test beside this one may hold.
  writeFileSync(join(root, '.env'), `API_SERVER_KEY=${opts.key}\nAPI_SERVER_PORT=0\n`, { mode: 0o600 })
  opts.before?.(root)
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  const host = await createHost({ home: root, headless: true, live: false, log: createLogger() })
  return { root, host }
}
