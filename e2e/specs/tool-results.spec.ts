import { expect, type Locator } from '@playwright/test'
import { test } from '../fixtures/tool-home-host'
import { axeViolations, smallTargets } from '../fixtures/axe'
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

  // each folded row says how its call went, as the CLI's summary line does
  await expect(page.getByTestId('tool-outcome')).toHaveText([
    'exit 0',
    '10 lines',
    '3 lines of 10',
    'diff +1 −1',
    '2 matches',
    '1 file',
    '2 todos',
    '2 results',
    '2 results'
  ])
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
  // write_file's result has no shape of its own: read field by field, not as JSON
  await expect(calls.nth(7).getByTestId('tool-output')).toHaveAttribute('data-kind', 'fields')
  await expect(calls.nth(7).getByTestId('tool-fields')).toContainText('bytes_written25')
  await expect(calls.nth(7).getByTestId('tool-output')).not.toContainText('"bytes_written"')

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

  // axe judges a link's colour against the text around it only where it can see it: the search results in view
  await web.scrollIntoViewIfNeeded()
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme)
    expect(await axeViolations(page), theme).toEqual([])
  }
  // every control's own box, the result links included, is 24 px tall at least (a11y.spec says why)
  expect(await smallTargets(page)).toEqual([])
})

test("upstream's other tools read as what happened, never as a JSON dump; parallel and lost calls kept", async ({
  page,
  host
}) => {
  // tall enough that the whole session's folded calls are on screen (the transcript renders what is in view)
  await page.setViewportSize({ width: 1360, height: 3200 })
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  await s.open('default', 'golden-tools-more')
  await expect(s.title).toHaveText('More golden tool results')
  /** The call to `name` whose summary line shows `args`, opened. */
  const open = async (name: string, args: string) => {
    const c = page
      .getByTestId('tool-call')
      .filter({ has: page.locator('.tool-name').getByText(name, { exact: true }) })
      .filter({ has: page.locator('.tool-args-preview').getByText(args, { exact: true }) })
    await c.scrollIntoViewIfNeeded()
    await c.getByTestId('tool-call-toggle').click()
    await expect(c.getByTestId('tool-output')).not.toHaveAttribute('data-kind', 'json')
    return c
  }
  // the one result whose call is not in the session stays, as a row of its own
  await expect(s.messagesByRole('tool')).toHaveCount(1)
  // the turn's tool timeline: every row's track on one time scale (same start, same width), whatever the
  // lengths of the tool names and facts beside it
  const tracks = page.getByTestId('timeline-call').locator('.tl-track')
  await expect(tracks).toHaveCount(33)
  const boxes = await tracks.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.x, r.width]))
  expect(new Set(boxes.map((b) => b.join()))).toEqual(new Set([boxes[0]!.join()]))

  // in transcript order (an opened call pushes the later ones down)
  // a background process: its id beside the output
  const bg = await open('terminal', 'command: sleep 60 · background: true')
  await expect(bg.getByTestId('tool-fact').first()).toHaveText('process proc_0123456789ab')
  // execute_code: the script's output as a terminal's, its time beside it; a failed run marked on the folded row
  const script = await open('execute_code', "code: print('ready') print(sum(range(5)))")
  await expect(script.getByTestId('terminal-output')).toHaveText('ready\n10')
  await expect(script.getByTestId('tool-fact').first()).toHaveText('took 0.04 s')
  const crash = await open('execute_code', "code: print('aaa') print(1/0)")
  await expect(crash.getByTestId('tool-failed')).toHaveText('failed')
  await expect(crash.getByTestId('terminal-output')).toContainText('ZeroDivisionError')
  // memory: what it said, then its fields
  const memory = (await open('memory', 'action: add · target: memory · content: User likes café au lait')).getByTestId(
    'tool-fields'
  )
  await expect(memory.getByTestId('tool-fields-message')).toHaveText('Entry added.')
  await expect(memory).toContainText('usage1% — 23/2,200 chars')
  // session_search: the sessions found as a list, upstream's hit markers as marks
  const found = (await open('session_search', 'query: café')).getByTestId('tool-list').locator('li')
  await expect(found).toHaveCount(1)
  await expect(found.locator('mark')).toHaveText('café')
  await expect(found).not.toContainText('>>>')
  // cronjob list: the job by name with its schedule
  const jobs = await open('cronjob', 'action: list')
  await expect(jobs.getByTestId('tool-list').locator('li')).toContainText('inbox · scheduled · every 120m')
  // arguments that were not JSON: upstream's refusal and why
  const invalid = await open('terminal', 'command: ls -la')
  await expect(invalid.getByTestId('tool-error')).toHaveText('Invalid tool arguments')
  await expect(invalid).toContainText('tool was not executed')
  await expect(invalid.getByTestId('tool-args-label')).toHaveText('arguments · not valid JSON, as the model sent them')
  // three calls made at once, each with its own result though they finished in another order
  await expect((await open('terminal', 'command: echo one')).getByTestId('terminal-output')).toHaveText('one')
  const search = await open('search_files', 'pattern: café · target: content · path: src')
  await expect(search.getByTestId('tool-list').locator('li')).toContainText('src/café.py · line 1')
  // one command run twice under one call id (upstream derives ids from tool, arguments and place): each its own result
  const twice = page
    .getByTestId('tool-call')
    .filter({ has: page.locator('.tool-args-preview').getByText('command: cat counter.txt', { exact: true }) })
  await expect(twice).toHaveCount(2)
  for (const [i, out] of ['first run', 'second run'].entries()) {
    await twice.nth(i).getByTestId('tool-call-toggle').click()
    await expect(twice.nth(i).getByTestId('terminal-output')).toHaveText(out)
  }

  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme)
    expect(await axeViolations(page), theme).toEqual([])
  }
})
