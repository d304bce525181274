// `npm test`: build once, then three lanes side by side until all end: the browser tests (Playwright, 2 workers:
// e2e/fixtures), the unit tests (vitest, 2 workers), and the static checks one after another (typecheck, ESLint,
// Prettier).
// Why: the CLI tests spawn `node bin/caduceus.mjs`, which runs the built bundle when it is current and TypeScript
// through tsx otherwise (seconds per process), so the build comes first. After it, none of the three keeps two cores
// busy on its own (the tests wait on child processes, sockets and the browser; each check is one process), and one
// after another they left cores idle: side by side the machine stays busy and the run ends with its longest lane.
// Only vitest prints as it goes; every other step's output is held and printed whole when it ends, so logs never
// interleave. Every step runs even after another failed, so one run reports everything that is wrong.
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

/** Runs steps one after another, each held (quiet). Resolves to the worst exit code. */
async function serial(scripts) {
  let worst = 0
  for (const s of scripts) worst = Math.max(worst, await run(s, { quiet: true }))
  return worst
}

const build = await run('build', { quiet: true })
if (build !== 0) process.exit(build)
const codes = await Promise.all([
  run('test:e2e', { quiet: true }),
  run('test:unit'),
  serial(['typecheck', 'lint', 'format:check'])
])
const worst = Math.max(...codes)
console.log(`── npm test: ${worst ? 'FAILED' : 'ok'} in ${secs(started)}`)
process.exit(worst)
