// The live-subagent registry and the background pool belong to a host graph (they were process-wide singletons):
// every profile of one graph shares them (the async cap counts every profile's units), another graph has its own.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { silentLogger } from '@shared/contract/log'
import { EventBus } from '../dispatch'
import { createStoreServices, wireRuntime } from '.'
import { SecretMask } from '../../secrets'

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

async function graph() {
  const root = mkdtempSync(join(tmpdir(), 'cad-deleg-shared-'))
  made.push(root)
  mkdirSync(join(root, 'profiles', 'beta'), { recursive: true })
  const services = createStoreServices({
    root,
    demo: false,
    headless: true,
    live: false,
    log: silentLogger,
    bus: new EventBus()
  })
  const runtime = await wireRuntime(services, { live: false, demo: false, mask: new SecretMask() })
  return { services, runtime }
}

describe('delegation state per host graph', () => {
  it('two profiles of one graph share the registry and the pool; a second graph gets its own', async () => {
    const a = await graph()
    const b = await graph()
    try {
      const [aDefault, aBeta, bDefault] = [
        a.runtime.delegation('default'),
        a.runtime.delegation('beta'),
        b.runtime.delegation('default')
      ]
      expect(aBeta.live).toBe(aDefault.live)
      expect(aBeta.pool).toBe(aDefault.pool)
      expect(bDefault.live).not.toBe(aDefault.live)
      expect(bDefault.pool).not.toBe(aDefault.pool)
    } finally {
      await a.services.close()
      await b.services.close()
    }
  })
})
