// `npm test`: build once, then everything side by side until all end: the browser tests (Playwright, 2 workers:
// e2e/fixtures), the unit tests (vitest, 2 workers), and the static checks (typecheck, ESLint, Prettier) as three
// processes at the lowest CPU priority.
// Why: the CLI tests spawn `node bin/caduceus.mjs`, which runs the built bundle when it is current and TypeScript
// through tsx otherwise (seconds per process), so the build comes first. After it, the run's wall time is the machine's
// CPU: the suite needs about twice what two cores give a lane at once. The two test lanes wait often (on child
// processes, sockets, the browser, locks) and neither keeps two cores busy alone; the static checks never wait. So
// the checks only fill what the test lanes leave idle (nice 19) and take both cores once those end, where at equal
// priority they slowed the test lanes' every step and the run ended with the slowest of three crowded lanes.
// Only vitest prints as it goes; every other step's output is held and printed whole when it ends, so logs never
// interleave. Every step runs even after another failed, so one run reports everything that is wrong.
import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'

const started = Date.now()
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(0)} s`

/**
 * Runs `npm run <script>`; `quiet` holds its output until it ends, `filler` runs it (and what it starts) at the lowest
 * CPU priority. Resolves to its exit code.
 */
function run(script, { quiet = false, filler = false } = {}) {
  const t = Date.now()
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    // Set before npm has started the script (it loads for ~100 ms first), so every process under it inherits it.
    if (filler && child.pid) {
      try {
        setPriority(child.pid, 19)
      } catch {
        // a system that refuses (e.g. no permission) runs the checks at normal priority: slower, never wrong
      }
    }
    let out = ''
    if (quiet) {
      child.stdout.on('data', (d) => (out += d))
      child.stderr.on('data', (d) => (out += d))
    }
    child.on('close', (code) => {
      const status = code === 0 ? 'ok' : `FAILED (exit ${code})`
      if (quiet && (code !== 0 || out.trim())) process.stdout.write(`\n── ${script}: ${status}\n${out}`)
      console.log(`── ${script} ${status} in ${secs(t)}`)
      resolve(code ?? 1)
    })
  })
}

const build = await run('build', { quiet: true })
if (build !== 0) process.exit(build)
const codes = await Promise.all([
  run('test:e2e', { quiet: true }),
  run('test:unit'),
  ...['typecheck', 'lint', 'format:check'].map((s) => run(s, { quiet: true, filler: true }))
])
const worst = Math.max(...codes)
console.log(`── npm test: ${worst ? 'FAILED' : 'ok'} in ${secs(started)}`)
process.exit(worst)
