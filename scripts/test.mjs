// `npm test`: build once, then the static checks beside the unit tests, then the browser tests.
// Why this order: the CLI tests spawn `node bin/caduceus.mjs`, which runs the built bundle when it is current and
// TypeScript through tsx otherwise (seconds per process); building first makes every spawned host start from JS.
// The checks (three typecheck programs, ESLint, Prettier) run while vitest waits on its child processes, so the two
// cores stay busy; their output is held and printed whole, one block per check, so logs never interleave.
import { spawn } from 'node:child_process'

const started = Date.now()
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(0)} s`

/** Runs `npm run <script>`; `quiet` holds its output until it ends. Resolves to its exit code. */
function run(script, { quiet = false } = {}) {
  const t = Date.now()
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
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

/** Runs checks one after another (on two cores a second parallel lane only steals from vitest). */
async function serial(scripts) {
  let worst = 0
  for (const s of scripts) worst = Math.max(worst, await run(s, { quiet: true }))
  return worst
}

const build = await run('build', { quiet: true })
if (build !== 0) process.exit(build)
const [checks, unit] = await Promise.all([serial(['typecheck', 'lint', 'format:check']), run('test:unit')])
// The browser tests run even after a failure above, so one run reports everything that is wrong.
const e2e = await run('test:e2e')
console.log(`── npm test: ${checks || unit || e2e ? 'FAILED' : 'ok'} in ${secs(started)}`)
process.exit(checks || unit || e2e)
