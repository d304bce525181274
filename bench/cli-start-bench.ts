/**
 * Time from `node bin/caduceus.mjs serve --home <new dir>` to its ready line (test/support/serve.ts, as every test starts one), for the built CLI (out/main/cli.js)
 * and the tsx fallback. Needs `npm run build` first for the built number (otherwise it reports null).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { repo as root, spawnHost } from '../test/support/serve'

async function timeToToken(env: NodeJS.ProcessEnv): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'cad-start-'))
  const started = performance.now()
  try {
    const host = await spawnHost({
      args: [join(root, 'bin/caduceus.mjs'), 'serve', '--home', home, '--port', '0'],
      env,
      name: 'serve'
    })
    const ms = performance.now() - started
    await host.stop()
    return ms
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function runCliStartBench(runs = 5) {
  const built = existsSync(join(root, 'out/main/cli.js'))
  const builtMs: number[] = []
  if (built) for (let i = 0; i < runs; i++) builtMs.push(await timeToToken({}))
  const sourceMs: number[] = []
  for (let i = 0; i < 2; i++) sourceMs.push(await timeToToken({ CADUCEUS_FROM_SOURCE: '1' }))
  return {
    serveToTokenBuiltMs: built ? { median: Math.round(median(builtMs)), max: Math.round(Math.max(...builtMs)) } : null,
    serveToTokenFromSourceMs: { median: Math.round(median(sourceMs)) }
  }
}
