// vitest with a JSON report when CI asks for one (VITEST_JSON), so the CI summary can count tests.
import { spawnSync } from 'node:child_process'
const args = ['vitest', 'run']
if (process.env.VITEST_JSON)
  args.push('--reporter=default', '--reporter=json', `--outputFile.json=${process.env.VITEST_JSON}`)
const r = spawnSync('npx', args, { stdio: 'inherit' })
process.exit(r.status ?? 1)
