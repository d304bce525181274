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
      rollupOptions: { input: { index: r('src-main/index.ts') }, external: ['better-sqlite3'] }
    },
    resolve: { alias }
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload must be CommonJS.
      rollupOptions: { input: { index: r('src-main/preload.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } }
    },
    resolve: { alias }
  },
  renderer: {
    root: r('src-renderer'),
    base: './',
    build: { outDir: r('out/renderer'), minify: true, rollupOptions: { input: { index: r('src-renderer/index.html') } } },
    resolve: { alias },
    plugins: [react()]
  }
})
