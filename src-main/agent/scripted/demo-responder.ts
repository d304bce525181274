/**
 * Answers any conversation plausibly without a key, for `--demo` mode and e2e tests. Deterministic:
 * same conversation, same reply. Uses the `memory` tool when asked to remember and `delegate_task`
 * when asked to delegate, if those tools were offered; otherwise a short helpful echo.
 */
import type { RecordedRequest, ScriptReply } from './script'

export const DEMO_MODEL_LABEL = 'demo model'

interface Turn {
  role: string
  text: string
  isToolResult: boolean
}

export function demoResponder(req: RecordedRequest): ScriptReply {
  const body = req.body ?? {}
  const tools = toolNames(body)
  const last = lastTurn(body)
  const model = typeof body.model === 'string' ? body.model : DEMO_MODEL_LABEL
  if (!last) return { text: 'Hello! I am the demo model. Ask me anything.', model }
  if (last.isToolResult) {
    return {
      text: `Done. The tool reported: ${clip(last.text, 240)}`,
      reasoning: 'The tool finished; summarize its result for the user.',
      model
    }
  }
  // Recall rides on the user's message as a <memory-context> block: it is what memory already holds, never
  // part of the request, so it is neither stored again nor handed to a subagent.
  const text = withoutRecall(last.text).trim()
  // A delegation-complete notice is a report, not a request: never delegate again from it (no loops).
  if (text.startsWith('[Background delegation')) {
    return {
      text: `The subagent is done. ${clip(text.split('\n').find((l) => l.startsWith('Result:')) ?? text, 300)}`,
      model
    }
  }
  // A profile with the holographic provider keeps facts in its fact store.
  if (/\bremember\b/i.test(text) && tools.has('fact_store')) {
    const fact = text.replace(/^.*?\bremember\b(\s+that)?[:,]?\s*/i, '') || text
    return {
      reasoning: 'A durable fact: keep it in the fact store.',
      toolCalls: [{ name: 'fact_store', arguments: { action: 'add', content: clip(fact, 500) } }],
      model
    }
  }
  if (/\bremember\b/i.test(text) && tools.has('memory')) {
    const fact = text.replace(/^.*?\bremember\b(\s+that)?[:,]?\s*/i, '') || text
    return {
      reasoning: 'The user wants this kept for later; store it in memory.',
      toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: clip(fact, 500) } }],
      model
    }
  }
  if (/\b(delegate|subagent)\b/i.test(text) && tools.has('delegate_task')) {
    return {
      reasoning: 'This is a good fit for a subagent.',
      toolCalls: [{ name: 'delegate_task', arguments: { goal: clip(text, 500) } }],
      model
    }
  }
  if (!text) return { text: 'I did not catch that — could you say it again?', model }
  // "show markdown" answers with what the transcript renders; "… and hold" keeps the stream open (a turn the
  // user can watch mid-stream, then stop).
  if (/\bshow markdown\b/i.test(text)) return { text: MARKDOWN_SAMPLE, model, stall: /\band hold\b/i.test(text) }
  // A report long enough that the transcript renders it block by block (a real agent's write-up).
  if (/\bshow a long report\b/i.test(text)) return { text: LONG_REPORT, model, stall: /\band hold\b/i.test(text) }
  const words = text.split(/\s+/).length
  return {
    reasoning: `The user wrote ${words} word${words === 1 ? '' : 's'}; answer briefly.`,
    text: `You said: "${clip(text, 400)}". I'm the demo model, so I can't really think about it — connect a provider in Settings for real answers.`,
    model
  }
}

function withoutRecall(text: string): string {
  // From the first newline of a run only: `\n*` first rescanned a long run of newlines from each one in it (quadratic).
  return text.replace(/(?<!\n)\n*<memory-context>[\s\S]*?(?:<\/memory-context>|$)/g, '')
}

function toolNames(body: any): Set<string> {
  const out = new Set<string>()
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    const name = t?.function?.name ?? t?.name
    if (typeof name === 'string') out.add(name)
  }
  return out
}

function lastTurn(body: any): Turn | null {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!m || m.role === 'system') continue
    if (m.role === 'tool') return { role: 'tool', text: asText(m.content), isToolResult: true }
    if (Array.isArray(m.content)) {
      const result = m.content.find((b: any) => b?.type === 'tool_result')
      if (result) return { role: 'tool', text: asText(result.content), isToolResult: true }
    }
    return { role: String(m.role), text: asText(m.content), isToolResult: false }
  }
  return null
}

function asText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content.map((b: any) => (typeof b === 'string' ? b : typeof b?.text === 'string' ? b.text : '')).join(' ')
  return ''
}

const MARKDOWN_SAMPLE = `Here is a quick tour 🦩

\`\`\`ts
export const answer = (n: number): number => n * 42
\`\`\`

| Feature | Shown as |
|---|---|
| code | highlighted block |
| table | grid |

- [x] fenced code
- [ ] task lists`

/** Twelve sections of a deploy write-up: headings, prose, a loose list, a table, a fenced block each. */
const LONG_REPORT = Array.from(
  { length: 12 },
  (_, i) => `## Host ${i + 1}

The rollout reached host ${i + 1} after **${2 * i + 3} minutes**; the agent restarted once.

1. Drained the node

   Traffic moved to the standby.

2. Restarted the agent

| check | result |
|---|---|
| health | ok |
| latency p95 | ${40 + i} ms |

\`\`\`bash
systemctl restart agent@${i + 1}

journalctl -u agent@${i + 1} --since "5 min ago"
\`\`\``
).join('\n\n')

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)
