/**
 * A provider as upstream's spend guard names it (`provider_snapshot`): the provider its runtime resolution ends at,
 * not the spelling in config.yaml. Upstream stores `custom` for every custom endpoint (`custom:<name>`, a name under
 * `custom_providers`, a local server alias such as `ollama`), and its canonical name for an alias (`claude` →
 * `anthropic`). Comparing spellings refused every unpinned job the other program created on such a profile, in both
 * programs; both sides of the comparison, and every snapshot Caduceus writes, go through this.
 */
const LOCAL_SERVERS = ['ollama', 'vllm', 'llamacpp', 'llama.cpp', 'llama-cpp']

/** Alias → the name upstream resolves it to (the common ones; an unknown name is its own identity). */
const CANONICAL: Record<string, string> = {
  claude: 'anthropic',
  'claude-code': 'anthropic',
  glm: 'zai',
  'z-ai': 'zai',
  'z.ai': 'zai',
  zhipu: 'zai',
  google: 'gemini',
  'google-gemini': 'gemini',
  'google-ai-studio': 'gemini',
  'x-ai': 'xai',
  'x.ai': 'xai',
  grok: 'xai',
  kimi: 'kimi-coding',
  'kimi-for-coding': 'kimi-coding',
  moonshot: 'kimi-coding',
  github: 'copilot',
  'github-copilot': 'copilot',
  hf: 'huggingface',
  'hugging-face': 'huggingface',
  aws: 'bedrock',
  'aws-bedrock': 'bedrock',
  'amazon-bedrock': 'bedrock',
  'lm-studio': 'lmstudio',
  lm_studio: 'lmstudio'
}

export function providerIdentity(name: string, customProviderNames: ReadonlySet<string>): string {
  const n = name.trim().toLowerCase()
  if (n === 'custom' || n.startsWith('custom:') || LOCAL_SERVERS.includes(n) || customProviderNames.has(n))
    return 'custom'
  return CANONICAL[n] ?? n
}

/** The names config.yaml's `custom_providers` list declares, lower-cased. */
export function customProviderNames(raw: Record<string, unknown>): Set<string> {
  const list = raw.custom_providers
  const out = new Set<string>()
  if (Array.isArray(list))
    for (const p of list)
      if (p && typeof p === 'object' && typeof (p as { name?: unknown }).name === 'string')
        out.add((p as { name: string }).name.trim().toLowerCase())
  return out
}
