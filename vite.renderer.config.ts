import { resolve } from 'node:path'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// Renderer-only dev server (electron-vite dev needs an Electron binary).
export default defineConfig({
  root: resolve(import.meta.dirname, 'src-renderer'),
  base: './',
  resolve: { alias: { '@shared': resolve(import.meta.dirname, 'shared') } },
  plugins: [react()]
})
