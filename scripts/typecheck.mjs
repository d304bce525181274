// `npm run typecheck`: the three programs (everything, the main process without DOM, the renderer without Node), checked
// by TypeScript 7's native compiler (package alias `typescript-native`): ~5× less CPU than TypeScript 5.9 on this tree.
// ESLint's type-aware rules and editors keep TypeScript 5.9 (`typescript`), since 7 has no JS API for them; both read
// the same tsconfigs. `--tsc5` checks with 5.9 instead, e.g. to tell a compiler difference from a real error.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const pkg = process.argv.includes('--tsc5') ? 'typescript' : 'typescript-native'
// A path, not require.resolve: typescript 7's package exports no bin subpath.
const tsc = fileURLToPath(new URL(`../node_modules/${pkg}/bin/tsc`, import.meta.url))
let failed = false
// One thread per program: by default TypeScript 7 checks with four checkers side by side, each resolving the types
// they share again — twice the CPU (19 -> 9 CPU-s for the three programs here) for no shorter wall time on two cores,
// and `npm test` runs it beside the other lanes, where the machine's CPU is the limit.
const threads = process.argv.includes('--tsc5') ? [] : ['--singleThreaded']
for (const project of ['tsconfig.json', 'tsconfig.main.json', 'tsconfig.renderer.json']) {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project, ...threads], { stdio: 'inherit' })
  if (r.status !== 0) {
    console.error(`typecheck: ${project} failed`)
    failed = true
  }
}
process.exit(failed ? 1 : 0)
