#!/usr/bin/env node
// `caduceus` CLI: runs the TypeScript host directly through tsx (no build step needed for the CLI itself).
import { register } from 'tsx/esm/api'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
register({ tsconfig: join(root, 'tsconfig.json') })
const { USAGE, wantsHelp } = await import(pathToFileURL(join(root, 'src-main/host/usage.ts')).href)
if (wantsHelp(process.argv.slice(2))) {
  // Help needs none of the host (SQLite, provider SDKs): answer before loading it.
  console.log(USAGE)
  process.exit(0)
}
const { runCli } = await import(pathToFileURL(join(root, 'src-main/host/cli.ts')).href)
process.exitCode = await runCli(process.argv.slice(2))
