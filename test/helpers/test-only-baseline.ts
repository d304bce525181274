/**
 * Production exports that only tests import, as of the check's introduction (issue #15: 89 at 891e94c). The list may
 * only shrink: test/structure.test.ts fails on a new entry and on an entry that is no longer test-only. To remove one,
 * make its test reach the behaviour through the real path (or a constructor option), unexport it, delete the line.
 */
export const TEST_ONLY_BASELINE: readonly string[] = [
  'src-main/gateway/cache-busting.ts#CACHE_BUSTING_CONFIG_KEYS',
  'src-main/gateway/channels.ts#bindApiServerSession',
  'src-main/gateway/channels.ts#deskChatVars',
  'src-main/gateway/session-context.ts#clearSessionVars',
  'src-main/gateway/session-context.ts#isSessionContextEngaged',
  'src-main/gateway/session-context.ts#resetSessionVars',
  'src-main/gateway/session-context.ts#runWithSessionContext',
  'src-main/scope/scope.ts#getSecret',
  'src-main/scope/scope.ts#withMultiplex',
  'src-main/scope/scope.ts#withSecretScope',
  'src-main/scope/scope.ts#withoutHomeOverride',
  'src-main/store/memory-events-repo.ts#memoryEventsOnHandle',
  'src-renderer/api/index.ts#setApi',
  'src-renderer/app/url-state.ts#parseSessionsQuery',
  'src-renderer/app/url-state.ts#sessionsQuery',
  'src-renderer/lib/drafts.ts#readDraft',
  'src-renderer/lib/drafts.ts#resetDraftsForTests',
  'src-renderer/lib/drafts.ts#writeDraft',
  'src-renderer/stores/app.ts#resetApp',
  'src-renderer/stores/costs.ts#resetCosts',
  'src-renderer/stores/gateway.ts#resetGateway',
  'src-renderer/stores/memory.ts#resetMemory',
  'src-renderer/stores/sessions.ts#resetSessions',
  'src-renderer/stores/settings.ts#resetSettings',
  'src-renderer/stores/subagents.ts#resetSubagents',
  'src-renderer/stores/toasts.ts#resetToasts',
  'src-renderer/stores/transcript.ts#LATEST',
  'src-renderer/stores/transcript.ts#resetTranscript',
  'src-renderer/stores/turns.ts#resetTurns'
]
