import { z } from 'zod'
import { ConfigProblem, ProfileName } from './common'

export const ProviderChoice = z.object({
  name: z.string(),
  kind: z.enum(['builtin', 'plugin', 'unsupported']),
  description: z.string(),
  version: z.string().optional()
})
export type ProviderChoice = z.infer<typeof ProviderChoice>

export const ProviderLoadState = z.enum(['none', 'active', 'failed', 'unavailable', 'refused'])
export const MemoryProviderState = z.object({
  profile: ProfileName,
  /** `memory.provider` as config.yaml says now (null = built-in only, or config.yaml cannot be read). */
  configured: z.string().nullable(),
  /** Set when config.yaml cannot be read: which provider the profile means is then unknown. */
  configError: ConfigProblem.optional(),
  /** What happened when this process last built an agent for the profile (null = not yet). */
  lastLoad: z
    .object({
      provider: z.string().nullable(),
      state: ProviderLoadState,
      detail: z.string().nullable(),
      at: z.number()
    })
    .nullable(),
  /**
   * Whether the next turn can use `configured`, checked now without building an agent (null when nothing is
   * configured, or when only loading a JS plugin could tell): not supported, not installed, no API key…
   */
  availability: z.object({ available: z.boolean(), detail: z.string().nullable() }).nullable(),
  choices: z.array(ProviderChoice)
})
export type MemoryProviderState = z.infer<typeof MemoryProviderState>

const ProviderName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'provider name must be a plain name like holographic')

/** Memory-provider requests (spread into the request map). */
export const memoryProviderRequests = {
  /** The configured external memory provider of a profile, its last load outcome and what can be picked. */
  'memory.providers': { input: z.object({ profile: ProfileName }), output: MemoryProviderState },
  /** Write `memory.provider` to the profile's config.yaml (null = built-in only); the next turn loads it if it can. */
  'memory.setProvider': {
    input: z.object({ profile: ProfileName, provider: ProviderName.nullable() }),
    output: MemoryProviderState
  }
} as const
