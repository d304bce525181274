/**
 * UI benchmark in real Chromium (Playwright) against a real `caduceus serve`: time to first paint of a
 * 3,000-message Markdown session opened from the Sessions page, and session-switch time between two such
 * sessions. Needs `npm run build` first (serves out/renderer). Wired into `npm run bench` by bench/run.ts.
 *
 * First paint is cold: every run opens a session this page has never shown, with bodies no other session
 * has (the renderer keeps rendered bodies and the last few transcripts; reopening would measure those caches).
 * Session switch is warm by design: back and forth between two sessions both opened before.
 * Jump to start: Home in a session open at its newest message, until message 0 is painted on screen; End
 * between runs brings the newest back (so each Home reads the first page again).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium } from '@playwright/test'
import { SessionStore, writeDemoHome } from '../src-main/store'
import { percentiles as pct } from './percentiles'
import { spawnHost } from '../test/support/serve'

export interface UiBenchResult {
  firstPaintMs: { p50: number; p95: number }
  sessionSwitchMs: { p50: number; p95: number }
  /** Home on an open 3,000-message session (at its newest) until its first message is on screen (issue 26). */
  jumpToStartMs: { p50: number; p95: number }
  messagesPerSession: number
  runs: number
}

const repo = resolve(import.meta.dirname, '..')

const MD = (i: number, tag: string) => `Step ${i} of ${tag}: here is what I found.

\`\`\`ts
export function step${i}(n: number): number {
  return n * ${i} // highlighted
}
\`\`\`

| metric | value |
|---|---|
| p95 | ${i % 97} ms |

- [x] measured
- [ ] follow up`

async function bigSession(store: SessionStore, id: string, title: string, n: number): Promise<void> {
  await store.createSession(id, 'cli', { model: 'demo-model', title, startedAt: 1796000000 })
  for (let i = 0; i < n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i) }, (_, k) => {
      const j = i + k
      return j % 2 === 0
        ? { role: 'user', content: `Question ${j} of ${id}: what about **item ${j}**?`, timestamp: 1796000000 + j }
        : { role: 'assistant', content: MD(j, id), timestamp: 1796000000 + j, finishReason: 'stop' }
    })
    await store.appendMessages(id, batch)
  }
}

export async function runUiBench(opts: { messages?: number; runs?: number } = {}): Promise<UiBenchResult> {
  const n = opts.messages ?? 3000
  const runs = opts.runs ?? 20
  if (!existsSync(join(repo, 'out', 'renderer', 'index.html'))) throw new Error('ui bench: run `npm run build` first')
  const root = mkdtempSync(join(tmpdir(), 'cad-ui-bench-'))
  await writeDemoHome(root, { sessions: { default: 20, work: 5, research: 5 } })
  const store = new SessionStore(join(root, 'state.db'), { profile: 'default' })
  try {
    await bigSession(store, 'bench_big_a', 'Bench: big session A', n)
    await bigSession(store, 'bench_big_b', 'Bench: big session B', n)
    for (let i = 0; i <= runs; i++) await bigSession(store, `bench_cold_${i}`, `Bench: cold session ${i}`, n)
  } finally {
    store.close()
  }
  const host = await spawnHost({
    args: ['bin/caduceus.mjs', 'serve', '--home', root, '--port', '0'],
    name: 'ui bench host'
  })
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu']
  })
  try {
    const url = host.url
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } })
    await page.goto(url.replace(/#.*$/, '') + '#/sessions')
    await page.getByTestId('connection-indicator').and(page.locator('[data-state="connected"]')).waitFor()
    // navigate and resolve once the new session's Markdown is on screen and a frame has been painted
    // In-page code as a string: tsx would wrap named inner functions in a `__name` helper the page lacks.
    await page.evaluate(`window.__benchOpen = (h, t) => new Promise((done) => {
      const t0 = performance.now()
      location.hash = h
      const check = () => {
        const ok = (t === null ? document.querySelector('[data-testid="session-row"]')
          : document.querySelector('[data-testid="session-title"]')?.textContent === t && document.querySelector('[data-testid="transcript"] .markdown pre code'))
        if (ok) requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)))
        else requestAnimationFrame(check)
      }
      check()
    })`)
    // navigate and resolve once the new session's Markdown is on screen and a frame has been painted
    const open = (hash: string, title: string | null) =>
      page.evaluate(
        ([h, t]) =>
          (window as unknown as { __benchOpen(h: string, t: string | null): Promise<number> }).__benchOpen(h, t),
        [hash, title] as const
      )
    const toList = () => open('#/sessions', null)
    const first: number[] = []
    const sw: number[] = []
    await open(`#/session/default/bench_cold_${runs}`, `Bench: cold session ${runs}`) // warm-up: code paths, fonts
    for (let i = 0; i < runs; i++) {
      await toList()
      first.push(await open(`#/session/default/bench_cold_${i}`, `Bench: cold session ${i}`))
    }
    await open('#/session/default/bench_big_b', 'Bench: big session B')
    await open('#/session/default/bench_big_a', 'Bench: big session A')
    for (let i = 0; i < runs; i++)
      sw.push(await open(`#/session/default/bench_big_${i % 2 ? 'a' : 'b'}`, `Bench: big session ${i % 2 ? 'A' : 'B'}`))
    // Home/End as key presses on the window (where the transcript listens), timed in the page until the target
    // message is inside the transcript's box and a frame has been painted
    await page.evaluate(`window.__benchKey = (key, text) => new Promise((done) => {
      const t0 = performance.now()
      window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }))
      const check = () => {
        const box = document.querySelector('[data-testid="transcript"]')?.getBoundingClientRect()
        const hit = [...document.querySelectorAll('[data-testid="message"]')].find((m) => {
          if (!m.textContent.includes(text)) return false
          const r = m.getBoundingClientRect()
          return box && r.bottom > box.top && r.top < box.bottom
        })
        if (hit) requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)))
        else requestAnimationFrame(check)
      }
      check()
    })`)
    const key = (k: string, text: string) =>
      page.evaluate(
        ([kk, t]) => (window as unknown as { __benchKey(k: string, t: string): Promise<number> }).__benchKey(kk, t),
        [k, text] as const
      )
    await open('#/session/default/bench_big_a', 'Bench: big session A')
    const home: number[] = []
    for (let i = 0; i < runs; i++) {
      home.push(await key('Home', 'Question 0 of bench_big_a'))
      await key('End', `Step ${n - 1} of bench_big_a`)
    }
    return { firstPaintMs: pct(first), sessionSwitchMs: pct(sw), jumpToStartMs: pct(home), messagesPerSession: n, runs }
  } finally {
    await browser.close()
    await host.stop()
    rmSync(root, { recursive: true, force: true })
  }
}
