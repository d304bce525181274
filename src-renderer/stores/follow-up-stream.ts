import { create } from 'zustand'

/** Reply text of UI follow-ups as it streams, keyed by `profile/childId` (cleared when a new one is sent). */
export const useFollowUpStream = create<Record<string, string>>()(() => ({}))

export const followUpKey = (profile: string, childId: string) => `${profile}/${childId}`

export function applyFollowUpDelta(e: { profile: string; childId: string; text: string }): void {
  const key = followUpKey(e.profile, e.childId)
  useFollowUpStream.setState((s) => ({ ...s, [key]: (s[key] ?? '') + e.text }))
}

export function clearFollowUpStream(profile: string, childId: string): void {
  const key = followUpKey(profile, childId)
  useFollowUpStream.setState((s) => {
    const { [key]: _gone, ...rest } = s
    return rest
  }, true)
}
