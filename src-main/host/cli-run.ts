/**
 * `caduceus run -z PROMPT`: one stateless turn (upstream `hermes -z`, seed 003). stdout carries only the
 * final reply (or one JSON object with --json); every failure is one line on stderr and a non-zero exit.
 */
import { TURN_CHANNELS } from '../gateway'
import type { HostArgs } from './args'
import { createHost } from './index'
import { missingKeyReason } from './preflight'

export async function runOneShot(args: HostArgs): Promise<number> {
  const prompt = args.prompt ?? args.positionals.slice(1).join(' ')
  if (!prompt.trim()) {
    console.error('caduceus run: give the prompt with -z PROMPT')
    return 2
  }
  const profile = args.profile ?? 'default'
  const host = await createHost({ home: args.home, headless: true, live: false })
  try {
    const reason = missingKeyReason(host.homeOf(profile))
    if (reason) {
      console.error(`caduceus run: ${reason}`)
      return 1
    }
    const done = await host.gateway.runChannelTurn({
      profile,
      channel: TURN_CHANNELS.oneShot,
      text: prompt,
      model: args.model
    })
    for (const w of done.warnings) console.error(`caduceus run: warning: ${oneLine(w)}`)
    if (done.status !== 'completed') {
      console.error(`caduceus run: ${oneLine(done.error || `turn ${done.status}`)}`)
      return 1
    }
    if (args.json) {
      const t = done.tokens
      console.log(
        JSON.stringify({
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
        })
      )
    } else {
      console.log(done.reply)
    }
    return 0
  } catch (err) {
    console.error(`caduceus run: ${oneLine((err as Error).message)}`)
    return 1
  } finally {
    await host.close()
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
