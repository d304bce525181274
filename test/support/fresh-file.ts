/**
 * Runs before every test file (vitest.config.ts `setupFiles`). Files share a worker process (`isolate: false`: a
 * fork per file spent about half of the unit tests' CPU starting Node and re-importing the same packages), so this
 * gives each file what a fresh process would: the project's own modules evaluated anew (so module-level state such
 * as the redactor or the log sinks starts clean; packages under node_modules stay loaded, which is the saving),
 * the environment and working directory the worker started with, no stubbed globals, and real timers.
 */
import { vi } from 'vitest'

const saved = globalThis as typeof globalThis & { __caduceusFreshFile?: { env: NodeJS.ProcessEnv; cwd: string } }

if (!saved.__caduceusFreshFile) {
  saved.__caduceusFreshFile = { env: { ...process.env }, cwd: process.cwd() }
} else {
  const { env, cwd } = saved.__caduceusFreshFile
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key]
  Object.assign(process.env, env)
  if (process.cwd() !== cwd) process.chdir(cwd)
  process.exitCode = undefined
  vi.useRealTimers()
  vi.unstubAllGlobals()
  vi.unstubAllEnvs()
  vi.resetModules()
}
