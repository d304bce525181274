/**
 * Prompt-injection scan for text that enters the system prompt verbatim: built-in memory entries (the `strict`
 * set: a write is refused, a poisoned entry on disk is replaced in the prompt by a notice) and SOUL.md (the
 * `context` set: the whole file is replaced by a notice). Same observable verdicts as upstream Hermes'
 * scanner, so a home behaves alike under both programs: the same inputs are flagged with the same ids, in
 * the same order (test/fixtures/upstream/memory-store holds upstream's verdicts over a corpus).
 *
 * The regexes read the text as Python's `re` does (upstream's engine): `W` is Python's Unicode `\w`, `S` its
 * Unicode `\s` (no U+FEFF, but U+001C–U+001F), `B` its Unicode `\b`; the text is NFKC-folded first so full-width
 * letters cannot dodge a keyword, and only its first 65,536 code points are read.
 */

const W = '[\\p{L}\\p{N}_]'
const S = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]'
const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`
/** Up to eight filler words between the key words of a phrase: "ignore all of the prior instructions". */
const F = `(?:${W}+${S}+){0,8}`
const VERBS_MOD = `(?:update|modify|edit|write|change|append|add${S}+to)`

type Scope = 'all' | 'context' | 'strict'
/** [id, the narrowest scanner that uses it, regex source]; the order is the order findings are reported in. */
const RULES: [string, Scope, string][] = [
  ['prompt_injection', 'all', `ignore${S}+${F}(?:previous|all|above|prior)${S}+${F}instructions`],
  ['sys_prompt_override', 'all', `system${S}+prompt${S}+override`],
  ['disregard_rules', 'all', `disregard${S}+${F}(?:your|all|any)${S}+${F}(?:instructions|rules|guidelines)`],
  [
    'bypass_restrictions',
    'all',
    `act${S}+as${S}+(?:if|though)${S}+${F}you${S}+${F}(?:have${S}+no|don't${S}+have)${S}+${F}(?:restrictions|limits|rules)`
  ],
  ['html_comment_injection', 'all', '<!--[^>]{0,512}(?:ignore|override|system|secret|hidden)[^>]{0,512}-->'],
  ['hidden_div', 'all', `<${S}*div${S}+style${S}*=${S}*["'][^>]{0,2048}display${S}*:${S}*none`],
  [
    'translate_execute',
    'all',
    `translate${S}+[^\\n]{0,512}${S}+into${S}+[^\\n]{0,512}${S}+and${S}+(?:execute|run|eval)`
  ],
  ['deception_hide', 'all', `do${S}+not${S}+${F}tell${S}+${F}the${S}+user`],
  ['role_hijack', 'context', `you${S}+are${S}+${F}now${S}+(?:a|an|the)${S}+`],
  ['role_pretend', 'context', `pretend${S}+${F}(?:you${S}+are|to${S}+be)${S}+`],
  ['leak_system_prompt', 'context', `output${S}+${F}(?:system|initial)${S}+prompt`],
  [
    'remove_filters',
    'context',
    `(?:respond|answer|reply)${S}+without${S}+${F}(?:restrictions|limitations|filters|safety)`
  ],
  ['fake_update', 'context', `you${S}+have${S}+been${S}+${F}(?:updated|upgraded|patched)${S}+to`],
  ['identity_override', 'context', `${B}name${S}+yourself${S}+${W}+`],
  ['c2_node_registration', 'context', `register${S}+(?:as${S}+)?a?${S}*node`],
  ['c2_heartbeat', 'context', `(?:heartbeat|beacon|check(?:${S}|-)?in)${S}+(?:to|with)${S}+`],
  ['c2_task_pull', 'context', `pull${S}+(?:down${S}+)?(?:new${S}+)?task(?:ing|s)?${B}`],
  ['c2_network_connect', 'context', `connect${S}+to${S}+the${S}+network${B}`],
  ['forced_action', 'context', `you${S}+must${S}+(?:${W}+${S}+){0,3}(?:register|connect|report|beacon)${B}`],
  ['anti_forensic_oneliner', 'context', `only${S}+use${S}+one(?:${S}|-)?liners?${B}`],
  ['anti_forensic_disk', 'context', `never${S}+${F}(?:create|write)${S}+${F}(?:script|file)${S}+${F}disk`],
  ['env_var_unset_agent', 'context', `unset${S}+${W}*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)${W}*`],
  ['known_c2_framework', 'context', `${B}(?:cobalt${S}*strike|sliver|havoc|mythic|metasploit|brainworm)${B}`],
  ['c2_explicit', 'context', `${B}c2${S}+(?:server|channel|infrastructure|beacon)${B}`],
  ['c2_explicit_long', 'context', `${B}command${S}+and${S}+control${B}`],
  ['exfil_curl', 'all', `curl${S}+[^\\n]{0,2048}\\$\\{?${W}*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)`],
  ['exfil_wget', 'all', `wget${S}+[^\\n]{0,2048}\\$\\{?${W}*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)`],
  ['read_secrets', 'all', `cat${S}+[^\\n]{0,2048}(?:\\.env|credentials|\\.netrc|\\.pgpass|\\.npmrc|\\.pypirc)`],
  ['send_to_url', 'strict', `(?:send|post|upload|transmit)${S}+[^\\n]{0,2048}${S}+(?:to|at)${S}+https?://`],
  [
    'context_exfil',
    'strict',
    `(?:include|output|print|share)${S}+${F}(?:conversation|chat${S}+history|previous${S}+messages|full${S}+context|entire${S}+context)`
  ],
  ['ssh_backdoor', 'strict', 'authorized_keys'],
  ['ssh_access', 'strict', '\\$HOME/\\.ssh|~/\\.ssh'],
  ['hermes_env', 'strict', '\\$HOME/\\.hermes/\\.env|~/\\.hermes/\\.env'],
  [
    'agent_config_mod',
    'strict',
    `${VERBS_MOD}${S}+[^\\n]{0,2048}(?:AGENTS\\.md|CLAUDE\\.md|\\.cursorrules|\\.clinerules)`
  ],
  ['hermes_config_mod', 'strict', `${VERBS_MOD}${S}+[^\\n]{0,2048}\\.hermes/(?:config\\.yaml|SOUL\\.md)`],
  ['hardcoded_secret', 'strict', `(?:api[_-]?key|token|secret|password)${S}*[=:]${S}*["'][A-Za-z0-9+/=_-]{20,}`]
]

/** Which rule scopes each scanner applies: `context` ⊂ `strict`. */
const APPLIES: Record<'context' | 'strict', ReadonlySet<Scope>> = {
  context: new Set(['all', 'context']),
  strict: new Set(['all', 'context', 'strict'])
}
const COMPILED = RULES.map(([id, scope, src]) => ({ id, scope, re: new RegExp(src, 'iu') }))

/** Zero-width and bidi-control characters: invisible in an editor, read by the model. */
const INVISIBLE = new Set([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2062, 0x2063, 0x2064, 0xfeff, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066,
  0x2067, 0x2068, 0x2069
])
const MAX_SCAN_CODE_POINTS = 65_536

/** First `n` code points of `s` (a surrogate pair is one). */
function headCodePoints(s: string, n: number): string {
  if (s.length <= n) return s
  let i = 0
  for (let k = 0; k < n && i < s.length; k++) i += s.codePointAt(i)! > 0xffff ? 2 : 1
  return s.slice(0, i)
}

/**
 * What in `text` looks like an injection, as finding ids: `invisible_unicode_U+XXXX` for each distinct invisible
 * character (in order of first appearance), then each matching rule's id in rule order. Empty when clean.
 */
export function scanForThreats(text: string, scanner: 'context' | 'strict'): string[] {
  if (!text) return []
  const head = headCodePoints(text, MAX_SCAN_CODE_POINTS)
  const findings: string[] = []
  const seen = new Set<number>()
  for (const ch of head) {
    const cp = ch.codePointAt(0)!
    if (INVISIBLE.has(cp) && !seen.has(cp)) {
      seen.add(cp)
      findings.push(`invisible_unicode_U+${cp.toString(16).toUpperCase().padStart(4, '0')}`)
    }
  }
  // Python's IGNORECASE also folds the Turkish dotted and dotless i to i (JavaScript's `iu` does not).
  const folded = head.normalize('NFKC').replace(/[\u0130\u0131]/g, 'i')
  for (const r of COMPILED) if (APPLIES[scanner].has(r.scope) && r.re.test(folded)) findings.push(r.id)
  return findings
}
