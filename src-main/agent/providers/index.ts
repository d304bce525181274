/** Provider clients behind one streaming interface; pick by `runtime.apiMode`. */
import { createAnthropicClient } from './anthropic'
import { createOpenAICompatClient } from './openai-compat'
import { ProviderError, type ProviderClient, type RuntimeConfig } from './types'

export function createProviderClient(runtime: RuntimeConfig): ProviderClient {
  if (!runtime.baseUrl || !/^https?:\/\//i.test(runtime.baseUrl))
    throw new ProviderError('config', `invalid provider base URL '${runtime.baseUrl}'`)
  if (!runtime.model) throw new ProviderError('config', 'no model configured')
  return runtime.apiMode === 'anthropic_messages' ? createAnthropicClient(runtime) : createOpenAICompatClient(runtime)
}

export { toAnthropicMessages, toAnthropicTools, thinkingParam } from './anthropic-convert'
export { ToolCallAssembler } from './tool-call-assembler'
export { CallWatch, DEFAULT_CALL_LIMITS, resolveCallLimits, type CallLimits } from './call-limits'
export * from './types'
