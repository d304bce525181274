/**
 * `npm run bench [-- --home DIR] [--profile P] [--query WORD] [--json] [--only store|gateway]`
 * Prints one JSON object with every number and its ratio to the target. Not part of `npm test`.
 */
import { parseArgs } from 'node:util'
import { runStoreBench } from './store-bench'
import { runGatewayBench } from './gateway-bench'

const { values } = parseArgs({
  options: { home: { type: 'string' }, profile: { type: 'string' }, query: { type: 'string' }, json: { type: 'boolean' }, only: { type: 'string' } }
})

const targets = { listFirstPageMs: 5, ftsMs: 30, writeToEventMs: 100, idleCpuPercent: 1, cacheHitUs: 50, rebuilds: 0 }
const ratio = (value: number, target: number) => (target === 0 ? (value === 0 ? 'ok' : 'over') : Number((value / target).toFixed(3)))

const result: Record<string, unknown> = {}
if (values.only !== 'gateway') {
  const store = await runStoreBench({ home: values.home, profile: values.profile, query: values.query })
  Object.assign(result, store, {
    ratios: {
      listFirstPageP95: ratio(store.listFirstPageMs.p95, targets.listFirstPageMs),
      ftsP95: ratio(store.ftsMs.p95, targets.ftsMs),
      writeToEventP95: ratio(store.writeToEventMs.p95, targets.writeToEventMs),
      idleCpu: ratio(store.idleCpuPercent, targets.idleCpuPercent)
    }
  })
}
if (values.only !== 'store') {
  const gateway = await runGatewayBench()
  result.gateway = {
    ...gateway,
    ratios: {
      cacheHitP95: ratio(gateway.cacheHitUs.p95, targets.cacheHitUs),
      rebuilds: ratio(gateway.rebuilds, 0),
      // How much the memoized hit path saves over re-reading everything (same run, interleaved samples).
      uncachedOverCachedP50: Number((gateway.cacheHitUncachedUs.p50 / gateway.cacheHitUs.p50).toFixed(2))
    }
  }
}
result.targets = targets
console.log(JSON.stringify(result, null, values.json ? 0 : 2))
process.exit(0)
