/**
 * `caduceus run -z PROMPT` / `caduceus -z PROMPT`: one stateless turn (upstream `hermes -z`, seed 003). stdout
 * carries only the final reply (or one JSON object with --json); every failure is one line on stderr and a non-zero
 * exit: 2 for a usage error (nothing sent), 1 for a failed run. `--usage-file` writes upstream's usage report.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { resolveRuntime } from '../../config'
import type { SecretVault } from '../../secrets'
import { TURN_CHANNELS } from '../../gateway'
import { createTurnHost } from '../compose'
import { missingKeyReason } from './preflight'
import { parseRunArgs, UsageError, type RunArgs } from './run-args'
import { USAGE } from './usage'
import { profileOf } from './profile'
import { errorMessage } from '@shared/contract/errors'

type Done = Awaited<ReturnType<Awaited<ReturnType<typeof createTurnHost>>['gateway']['runChannelTurn']>>

export async function runOneShot(argv: string[]): Promise<number> {
  let args: RunArgs
  let prompt: string
  try {
    args = parseRunArgs(argv)
    prompt = args.prompt ?? (await readStdinPrompt())
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    console.error(`caduceus run: ${err.message}\n\n${USAGE}`)
    return 2
  }
  const profile = profileOf(args, 'default')
  const host = await createTurnHost({ home: args.home })
  let done: Done | null = null
  let failure: string | null = null
  try {
    const reason = missingKeyReason(host.homeOf(profile))
    if (reason) throw new Error(reason)
    done = await host.gateway.runChannelTurn({
      profile,
      channel: TURN_CHANNELS.oneShot,
      text: prompt,
      model: args.model,
      // As upstream's `hermes -z`: the folder it was run from is the session's, and its terminal's (not the home)
      cwd: process.cwd()
    })
    for (const w of done.warnings) console.error(`caduceus run: warning: ${oneLine(w)}`)
    // A partial answer (still cut off, its text kept) is printed and the run succeeds, as upstream's `-z` does;
    // the reason goes to stderr.
    const partial = done.partial === true && done.reply.trim() !== ''
    if (done.status !== 'completed' && !partial) throw new Error(done.error || `turn ${done.status}`)
    if (partial) console.error(`caduceus run: warning: ${oneLine(done.error ?? 'the reply is incomplete')}`)
    if (args.json) console.log(JSON.stringify(jsonReport(done)))
    else console.log(done.reply)
    return 0
  } catch (err) {
    failure = oneLine(errorMessage(err))
    console.error(`caduceus run: ${failure}`)
    return 1
  } finally {
    if (args.usageFile) writeUsageFile(args.usageFile, done, failure, () => runtimeOf(host, profile, args.model))
    await host.close()
  }
}

/** `-` or no prompt words: the prompt is stdin, when something is piped in. */
async function readStdinPrompt(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('give the prompt: -z PROMPT, or pipe it in (-z -)')
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (!text) throw new UsageError('the prompt on stdin is empty')
  return text
}

function jsonReport(done: Done) {
  const t = done.tokens
  return {
    session_id: done.sessionId,
    reply: done.reply,
    usage: {
      input_tokens: t.input,
      output_tokens: t.output,
      cache_read_tokens: t.cacheRead,
      cache_write_tokens: t.cacheWrite,
      reasoning_tokens: t.reasoning,
      total_tokens: t.input + t.output,
      api_calls: done.apiCalls
    },
    cost: { usd: done.cost.usd, status: done.cost.status },
    warnings: done.warnings
  }
}

function runtimeOf(host: { homeOf(p: string): string; vault: SecretVault }, profile: string, model?: string) {
  try {
    const rt = resolveRuntime(host.homeOf(profile), { vault: host.vault })
    return { model: model || rt.model || null, provider: rt.provider || null }
  } catch {
    // only a label: the run itself reports a runtime it cannot resolve
    return { model: model ?? null, provider: null }
  }
}

/** Upstream's `--usage-file` report (same field names), written even on failure so a pipeline can account for spend. */
function writeUsageFile(
  path: string,
  done: Done | null,
  failure: string | null,
  runtime: () => { model: string | null; provider: string | null }
): void {
  const t = done?.tokens
  const report: Record<string, unknown> = {
    estimated_cost_usd: done?.cost.usd ?? null,
    cost_status: done ? done.cost.status : null,
    cost_source: null,
    input_tokens: t?.input ?? null,
    output_tokens: t?.output ?? null,
    cache_read_tokens: t?.cacheRead ?? null,
    cache_write_tokens: t?.cacheWrite ?? null,
    reasoning_tokens: t?.reasoning ?? null,
    total_tokens: t ? t.input + t.output : null,
    api_calls: done?.apiCalls ?? null,
    ...runtime(),
    session_id: done?.sessionId ?? null,
    completed: done?.status === 'completed',
    failed: failure !== null,
    service_tier: null
  }
  if (failure !== null) report.failure = failure
  try {
    const file = resolve(path.replace(/^~(?=$|\/)/, process.env.HOME ?? '~'))
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)
  } catch (err) {
    // Never masks the run's own outcome (upstream: best effort).
    console.error(`caduceus run: could not write the usage file: ${oneLine(errorMessage(err))}`)
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
