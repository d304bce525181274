#!/usr/bin/env node
// `caduceus` CLI. Runs the built host (`out/main/cli.js`, the same bundle the app ships) when it is at least as new
// as the sources; otherwise falls back to running the TypeScript through tsx, with a notice, so a fresh checkout and
// a mid-edit tree still work. Built start: well under a second; tsx: several seconds.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// A reader that stops early (`caduceus sessions export - | head`) closes the pipe: the command ends there, quietly
// (exit 0), instead of a stack trace for the unhandled EPIPE. A server (`serve`, `api`) keeps serving, as it did when
// only the console wrote to a closed pipe (`caduceus api | head -1` reads the ready line and leaves it running).
const server = (() => {
  const argv = process.argv.slice(2)
  for (let i = 0; i < argv.length; i++) {
    if (['--home', '--profile', '-p'].includes(argv[i])) i++
    else if (!argv[i].startsWith('-')) return argv[i] === 'serve' || argv[i] === 'api'
  }
  return false
})()
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err
    if (!server) process.exit(0)
  })

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const built = join(root, 'out/main/cli.js')

/** True when some source file is newer than the build (a stale bundle must never run silently). */
function sourcesNewerThan(mtime) {
  const stack = ['src-main', 'shared'].map((d) => join(root, d))
  while (stack.length) {
    const dir = stack.pop()
    if (!existsSync(dir)) continue
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) stack.push(p)
      else if (!entry.name.endsWith('.test.ts') && statSync(p).mtimeMs > mtime) return true
    }
  }
  return false
}

let entry
let usage
if (!process.env.CADUCEUS_FROM_SOURCE && existsSync(built) && !sourcesNewerThan(statSync(built).mtimeMs)) {
  entry = built
  usage = join(root, 'out/main/usage.js')
} else {
  // Only a person at a terminal gets the notice: scripts reading stderr (one-line errors) see no extra line.
  if (!process.env.CADUCEUS_FROM_SOURCE && process.stderr.isTTY) {
    process.stderr.write(
      `caduceus: ${existsSync(built) ? 'the build is older than the sources' : 'no build yet'}; running from source (slower start; \`npm run build\` fixes it)\n`
    )
  }
  // tsx is a development tool: an installed package runs the build and never gets here.
  const tsx = await import('tsx/esm/api').catch(() => null)
  if (!tsx) {
    process.stderr.write('caduceus: no current build and no tsx to run the sources; run `npm run build`\n')
    process.exit(1)
  }
  const { register } = tsx
  register({ tsconfig: join(root, 'tsconfig.json') })
  entry = join(root, 'src-main/host/cli/main.ts')
  usage = join(root, 'src-main/host/cli/usage.ts')
}
const { USAGE, helpFor, wantsHelp, oneShotUsageError, nonUtf8Argument } = await import(pathToFileURL(usage).href)
// An argument whose bytes are not UTF-8 reached us already changed (Node replaced them): refused, one line, exit 2.
const notText = nonUtf8Argument(process.argv.length - 2)
if (notText) {
  console.error(notText)
  process.exit(2)
}
if (wantsHelp(process.argv.slice(2))) {
  // Help needs none of the host (SQLite, provider SDKs): answer before loading it.
  console.log(helpFor(process.argv.slice(2)))
  process.exit(0)
}
// A malformed `run -z` / `-z` line is refused the same way: exit 2, usage on stderr, nothing sent.
const usageError = oneShotUsageError(process.argv.slice(2))
if (usageError) {
  console.error(`${usageError}\n\n${USAGE}`)
  process.exit(2)
}
const { runCli } = await import(pathToFileURL(entry).href)
process.exitCode = await runCli(process.argv.slice(2))
