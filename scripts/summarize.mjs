// Prints one closing line "N passed, N failed, N skipped" over the vitest and Playwright JSON reports.
import { existsSync, readFileSync } from 'node:fs'

let passed = 0,
  failed = 0,
  skipped = 0,
  missing = 0
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    missing++
    console.error(`report missing: ${file}`)
    continue
  }
  const r = JSON.parse(readFileSync(file, 'utf8'))
  if ('numPassedTests' in r) {
    passed += r.numPassedTests
    failed += r.numFailedTests
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
  } else if (r.stats) {
    passed += r.stats.expected + (r.stats.flaky ?? 0)
    failed += r.stats.unexpected
    skipped += r.stats.skipped
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || passed === 0 || missing > 0 ? 1 : 0)
