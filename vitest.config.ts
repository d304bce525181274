import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { alias: { '@shared': resolve(import.meta.dirname, 'shared') } },
  test: {
    include: ['src-main/**/*.test.ts', 'shared/**/*.test.ts', 'src-renderer/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // better-sqlite3 is a native addon: forks isolate it per worker.
    pool: 'forks',
    // One worker process runs many files: a fresh fork per file spent about half of the suite's CPU starting Node and
    // importing the same packages again. test/support/fresh-file.ts gives each file what a fresh process would (the
    // project's modules evaluated anew, the starting environment and working directory, real timers).
    isolate: false,
    setupFiles: ['test/support/fresh-file.ts', 'test/support/file-temp-root.ts'],
    // vitest's default is one worker per core minus one: a single file at a time here, while most files wait on
    // child processes, sockets or locks. Two keep both cores busy.
    maxWorkers: 2,
    // Generous: CLI tests spawn `node bin/caduceus.mjs` (tsx before the build) on a shared 2-core box; a timeout
    // here is a hang detector, never a speed assertion.
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
