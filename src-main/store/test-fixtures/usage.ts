// One provider call's usage for `SessionStore.recordUsage` in tests: priced at `costUsd` (null: unpriced);
// `over` sets the model, tokens or endpoint.
import type { UsageReport } from '../index'

export const usageReport = (costUsd: number | null, over: Partial<UsageReport> = {}): UsageReport => ({
  model: 'gpt-x',
  provider: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  inputTokens: 100,
  outputTokens: 20,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  apiCalls: 1,
  costUsd,
  costStatus: costUsd === null ? 'unpriced' : 'estimated',
  ...over
})
