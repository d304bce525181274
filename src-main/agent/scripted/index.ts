export { startScriptedProvider, type ScriptedProvider, type ScriptedProviderOptions } from './server'
export { demoResponder, DEMO_MODEL_LABEL } from './demo-responder'
export type { ScriptReply, ScriptedToolCall, ScriptedUsage, RecordedRequest, ScriptHandler } from './script'

import type { RuntimeConfig } from '../providers/types'
import { demoResponder as respond, DEMO_MODEL_LABEL as LABEL } from './demo-responder'
import { startScriptedProvider as start, type ScriptedProvider } from './server'

/**
 * `--demo` mode: the scripted server answering with `demoResponder`, plus the runtime that points an
 * Agent at it. Model labelled "demo model", provider `demo` ⇒ always unpriced.
 */
export async function startDemoProvider(): Promise<{ server: ScriptedProvider; runtime: RuntimeConfig }> {
  const server = await start({ handler: respond, models: [LABEL] })
  return {
    server,
    runtime: {
      model: LABEL,
      provider: 'demo',
      baseUrl: server.baseUrl,
      apiKey: '',
      apiMode: 'chat_completions',
      maxRetries: 0
    }
  }
}
