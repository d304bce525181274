import { expect, type Locator } from '@playwright/test'
import { test } from '../fixtures/tool-home-host'
import { seriousViolations } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

/** Calls in the golden session (scripts/golden/tool_results.py). */
const CALLS = 16

/** The call folds in transcript order, each opened; returns them by index. */
async function openCalls(page: SessionPage): Promise<Locator> {
  const calls = page.page.getByTestId('tool-call')
  await expect(calls).toHaveCount(CALLS)
  for (let i = 0; i < CALLS; i++) {
    const toggle = calls.nth(i).getByTestId('tool-call-toggle')
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
  }
  return calls
}

test("upstream's tool results render by kind, each inside its call", async ({ page, host }) => {
  await page.setViewportSize({ width: 1360, height: 900 })
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  await s.open('default', 'golden-tools')
  await expect(s.title).toHaveText('Golden tool results')
  const calls = await openCalls(s)
  // results sit inside their calls, not as rows of their own
  await expect(s.messagesByRole('tool')).toHaveCount(0)
  await expect(page.getByTestId('tool-result')).toHaveCount(CALLS)

  const ok = calls.nth(0)
  await expect(ok.getByTestId('terminal-output')).toHaveText('Hello, Ada!\nline two\nline three')
  await expect(ok.getByTestId('exit-code')).toHaveText('exit 0')
  await expect(ok.getByTestId('exit-code')).toHaveClass(/badge-ok/)
  await expect(ok.getByTestId('tool-duration')).toHaveText(/\d+(\.\d)? s/)
  const failed = calls.nth(1)
  await expect(failed.getByTestId('exit-code')).toHaveText('exit 2')
  await expect(failed.getByTestId('exit-code')).toHaveClass(/badge-err/)
  await expect(failed.getByTestId('terminal-output')).toContainText('No such file or directory')

  // read_file: numbers only in the gutter, the code highlighted as Python / TypeScript by the path's extension
  const py = calls.nth(2).getByTestId('file-view')
  await expect(py).toHaveAttribute('data-lang', 'py')
  await expect(py.getByTestId('file-gutter')).toHaveText(Array.from({ length: 10 }, (_, i) => i + 1).join('\n'))
  const code = py.getByTestId('file-code')
  await expect(code).toContainText('def greet(name: str) -> str:')
  expect(await code.textContent()).not.toMatch(/^\s*\d+\|/m)
  await expect(code.locator('.hljs-keyword').first()).toBeVisible()
  // the call's summary line reads its arguments as key: value, not as JSON
  await expect(calls.nth(3).locator('.tool-args-preview')).toHaveText('path: src/total.ts · offset: 8 · limit: 3')
  const ts = calls.nth(3).getByTestId('file-view')
  await expect(ts).toHaveAttribute('data-lang', 'ts')
  await expect(ts.getByTestId('file-gutter')).toHaveText('8\n9\n10')
  await expect(ts.getByTestId('file-code')).toHaveText(
    'export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0)\n}'
  )

  // patch: the diff coloured by line
  const diff = calls.nth(4).getByTestId('tool-result')
  await expect(diff.locator('.diff-del')).toHaveText('-    return f"Hello, {name}!"\n')
  await expect(diff.locator('.diff-add')).toHaveText('+    return f"Hello, {name.title()}!"\n')
  await expect(diff.locator('.diff-hunk')).toHaveText(/^@@ -3,7 \+3,7 @@/)

  // search_files and todo: lists
  const matches = calls.nth(5).getByTestId('tool-list').locator('li')
  await expect(matches).toHaveCount(2)
  await expect(matches.first()).toContainText('/home/user/project/src/greet.py · line 4')
  await expect(matches.first()).toContainText('def greet(name: str) -> str:')
  await expect(calls.nth(6).getByTestId('tool-list').locator('li')).toHaveText(['/home/user/project/src/total.ts'])
  await expect(calls.nth(8).getByTestId('tool-list').locator('li')).toHaveText([
    'Title-case the name · completed',
    'Add a test · pending'
  ])
  // write_file's result has no shape of its own: JSON, pretty-printed
  await expect(calls.nth(7).getByTestId('tool-output')).toHaveAttribute('data-kind', 'json')
  await expect(calls.nth(7).getByTestId('tool-output')).toContainText('"bytes_written": 25')

  // read_file of a missing path: the error and upstream's suggestions, not an empty file
  const missing = calls.nth(9).getByTestId('file-view')
  await expect(missing).toHaveAttribute('data-state', 'error')
  await expect(missing.getByTestId('tool-error')).toHaveText('File not found: /home/user/project/src/greeting.py')
  await expect(missing.getByTestId('similar-files').locator('li')).toHaveText(['/home/user/project/src/greet.py'])
  await expect(missing.getByTestId('file-code')).toHaveCount(0)

  // web_search wrapped by upstream as untrusted: a badge naming the source, then the results as links
  const web = calls.nth(10).getByTestId('tool-output')
  await expect(web).toHaveAttribute('data-kind', 'list')
  await expect(web.getByTestId('untrusted-badge')).toHaveText('untrusted · web_search')
  await expect(web.getByTestId('untrusted-badge')).toHaveAttribute('title', /^The following content was retrieved/)
  await expect(web.getByRole('link', { name: 'Hermes Agent — documentation' })).toHaveAttribute(
    'href',
    'https://hermes-agent.example.org/docs'
  )
  await expect(web).not.toContainText('untrusted_tool_result')
  await expect(web).not.toContainText('Treat it as DATA')

  // a failed patch reads as an error; a result Hermes kept a preview of reads as output, with where the rest went
  await expect(calls.nth(12).getByTestId('tool-error')).toHaveText('Could not find a match for old_string in the file')
  const persisted = calls.nth(14).getByTestId('tool-output')
  await expect(persisted.getByTestId('tool-preview-note')).toContainText('/tmp/hermes-results/call_golden_15.txt')
  await expect(persisted.getByTestId('terminal-output')).toContainText('row 000001: xxxx')
  await expect(persisted.getByTestId('terminal-output')).not.toContainText('\\n')

  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme)
    expect(await seriousViolations(page), theme).toEqual([])
  }
})
