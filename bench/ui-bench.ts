/**
 * UI benchmark in real Chromium (Playwright) against a real `caduceus serve`: time to first paint of a
 * 3,000-message Markdown session opened from the Sessions page, session-switch time between two such
 * sessions, and jump to the start of one (its first message on screen, from the newest page a fresh open shows):
 * by the Home key where the transcript handles it, and by scrolling to the top as a user without keys does.
 * Needs `npm run build` first (serves out/renderer). Wired into `npm run bench` by bench/run.ts.
 *
 * First paint is cold: every run opens a session this page has never shown, with bodies no other session
 * has (the renderer keeps rendered bodies and the last few transcripts; reopening would measure those caches).
 * Session switch is warm by design: back and forth between two sessions both opened before.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium } from '@playwright/test'
import { SessionStore, writeDemoHome } from '../src-main/store'
import { percentiles as pct } from './percentiles'

export interface UiBenchResult {
  firstPaintMs: { p50: number; p95: number }
  sessionSwitchMs: { p50: number; p95: number }
  /** Home key → first message painted; null when Home did not reach it within 3 s (no such shortcut). */
  jumpHomeMs: { p50: number; p95: number } | null
  /** Scroll to the top, page by page, until the first message is painted. */
  scrollToStartMs: { p50: number; p95: number }
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
  writeDemoHome(root, { sessions: { default: 20, work: 5, research: 5 } })
  const store = new SessionStore(join(root, 'state.db'), { profile: 'default' })
  const firstIds = new Map<string, number>()
  try {
    await bigSession(store, 'bench_big_a', 'Bench: big session A', n)
    await bigSession(store, 'bench_big_b', 'Bench: big session B', n)
    for (let i = 0; i <= runs; i++) await bigSession(store, `bench_cold_${i}`, `Bench: cold session ${i}`, n)
    for (let i = 0; i < runs; i++) await bigSession(store, `bench_jump_${i}`, `Bench: jump session ${i}`, n)
    for (let i = 0; i < runs; i++) {
      const id = `bench_jump_${i}`
      firstIds.set(id, store.getMessages({ sessionId: id, afterId: 0, limit: 1 }).items[0]!.id)
    }
  } finally {
    store.close()
  }
  const host = spawn(process.execPath, ['bin/caduceus.mjs', 'serve', '--home', root, '--port', '0'], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HERMES_HOME: '' }
  })
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu']
  })
  try {
    const url = await new Promise<string>((res, rej) => {
      const t = setTimeout(() => rej(new Error('ui bench: host did not start')), 60_000)
      createInterface({ input: host.stdout! }).on('line', (l) => {
        try {
          const m = JSON.parse(l)
          if (m.ready) {
            clearTimeout(t)
            res(m.url)
          }
        } catch {
          /* log line */
        }
      })
    })
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
    // resolve once the message `id` is in the transcript and painted; -1 after `limitMs`. `scroll`: keep
    // scrolling to the top (each top reached loads the page before it).
    await page.evaluate(`window.__benchReach = (id, scroll, limitMs) => new Promise((done) => {
      const t0 = performance.now()
      const check = () => {
        if (document.querySelector('[data-testid="message"][data-message-id="' + id + '"]'))
          return requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)))
        if (performance.now() - t0 > limitMs) return done(-1)
        const t = document.querySelector('[data-testid="transcript"]')
        if (scroll && t) t.scrollTop = 0
        requestAnimationFrame(check)
      }
      check()
    })`)
    const reach = (id: number, scroll: boolean, limitMs: number) =>
      page.evaluate(
        ([i, s, l]) =>
          (window as unknown as { __benchReach(i: number, s: boolean, l: number): Promise<number> }).__benchReach(
            i,
            s,
            l
          ),
        [id, scroll, limitMs] as const
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
    // jump to start: half the sessions by Home, half by scrolling, each freshly opened (no page cached)
    const home: number[] = []
    const scrolled: number[] = []
    let homeWorks = true
    for (let i = 0; i < runs; i++) {
      const id = `bench_jump_${i}`
      await toList()
      await open(`#/session/default/${id}`, `Bench: jump session ${i}`)
      const firstId = firstIds.get(id)!
      if (i % 2 === 0 && homeWorks) {
        await page.getByTestId('transcript').focus()
        const t0 = page.keyboard.press('Home')
        const ms = await reach(firstId, false, 3000)
        await t0
        if (ms < 0) homeWorks = false
        else home.push(ms)
      } else scrolled.push(await reach(firstId, true, 60_000))
    }
    return {
      firstPaintMs: pct(first),
      sessionSwitchMs: pct(sw),
      jumpHomeMs: home.length ? pct(home) : null,
      scrollToStartMs: pct(scrolled),
      messagesPerSession: n,
      runs
    }
  } finally {
    await browser.close()
    host.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 300))
    rmSync(root, { recursive: true, force: true })
  }
}
