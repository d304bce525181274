/**
 * Runs before every test file, after fresh-file.ts (vitest.config.ts `setupFiles`): the file's temp folders go into
 * one folder of its own, removed after the file's last hook, so a test that makes a home with `mkdtempSync` and never
 * removes it (or a child process that makes its own: the CLI, upstream's Python, a Chromium) leaves nothing behind.
 * TMPDIR is what `os.tmpdir()`, Python's `tempfile` and every child that inherits the environment read;
 * fresh-file.ts puts the worker's own value back before the next file.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

const root = mkdtempSync(join(tmpdir(), 'cad-test-file-'))
// As /tmp itself: a test that runs a child as another user (read-only-home.test.ts) makes that user's folders here.
chmodSync(root, 0o1777)
process.env.TMPDIR = root

// Registered before the file's own hooks, so it runs after them (vitest runs after-hooks as a stack): a store or a
// child the file closes in its afterAll is closed by then.
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 3 }))
