import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

const r = (p: string) => resolve(import.meta.dirname, p)
const alias = { '@shared': r('shared') }

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: true,
      // `cli` is the headless CLI (bin/caduceus.mjs runs it when fresh), built from the same sources as the app.
      // Chunks stay beside the entries: host code resolves out/renderer and package.json relative to its own file.
      rollupOptions: {
        input: {
          index: r('src-main/index.ts'),
          cli: r('src-main/host/cli/main.ts'),
          usage: r('src-main/host/cli/usage.ts')
        },
        external: ['better-sqlite3'],
        output: { chunkFileNames: '[name]-[hash].js' }
      }
    },
    resolve: { alias }
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload must be CommonJS.
      rollupOptions: {
        input: { index: r('src-main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    },
    resolve: { alias }
  },
  renderer: {
    root: r('src-renderer'),
    base: './',
    build: {
      outDir: r('out/renderer'),
      minify: true,
      rollupOptions: { input: { index: r('src-renderer/index.html') } }
    },
    resolve: { alias },
    plugins: [react()]
  }
})
