/**
 * Production exports that only tests import, as of the check's introduction (issue #15: 89 at 891e94c). The list may
 * only shrink: test/structure.test.ts fails on a new entry and on an entry that is no longer test-only. To remove one,
 * make its test reach the behaviour through the real path (or a constructor option), unexport it, delete the line.
 */
export const TEST_ONLY_BASELINE: readonly string[] = [
  'src-main/agent/compression.ts#tailStart',
  'src-main/agent/providers/call-limits.ts#retryAfterMs',
  'src-main/agent/providers/openai-compat.ts#normalizeOpenAIUsage',
  'src-main/agent/tools/registry.ts#dispatchConcurrent',
  'src-main/agent/tools/registry.ts#dispatchSequential',
  'src-main/cron/scheduler.ts#claimDueJobs',
  'src-main/delegation/ledger.ts#loadChildUsageTotals',
  'src-main/host/agent-assembly.ts#agentRuntime',
  'src-main/host/agent-assembly.ts#deniedFor',
  'src-main/scope/scope.ts#withSecretScope',
  'src-main/store/search-query.ts#sanitizeFtsQuery',
  'src-main/store/session-store.ts#stateDbOf'
]
