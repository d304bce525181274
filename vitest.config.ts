import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { alias: { '@shared': resolve(import.meta.dirname, 'shared') } },
  test: {
    include: ['src-main/**/*.test.ts', 'shared/**/*.test.ts', 'src-renderer/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // better-sqlite3 is a native addon: forks isolate it per worker.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000
  }
})
