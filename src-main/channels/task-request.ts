/**
 * A chat UI's background task requests (hermes-channels §1): besides each turn of a conversation, Open WebUI asks the
 * same model for a title, tags, follow-up suggestions, search or retrieval queries, an image prompt or an
 * autocompletion. Each is one user message (its model's system prompt may come before it) holding a task prompt that
 * opens with `### Task:` and quotes the conversation's latest messages between `<chat_history>` and `</chat_history>`,
 * one per line as `ROLE: text` (role upper-cased, a message's later lines following as they are).
 *
 * Upstream stores each as a conversation of its own, so with follow-ups on every turn adds a session to the list and
 * to the cost reports. Here such a request still runs the agent and gets the same answer, but it is no conversation:
 * its usage is recorded on the conversation it quotes as a route row of the task (`session_model_usage.task`, as
 * upstream records a title or compression call on its session), and where no stored conversation is quoted (the
 * queries for a conversation's first message, asked before it is sent) it is kept as a hidden internal session until
 * a later task quotes that message with its reply (channel-turn.ts runTask). A request whose user typed such a prompt
 * as the first message of a new conversation is taken for a task too: it is answered, but listed nowhere.
 */
import type { Turn } from './conversation'

export interface TaskRequest {
  /** The route row's `task`: Open WebUI's own name for the task, `client_task` for a prompt of another wording. */
  task: string
  /** The quoted conversation's user and assistant messages, in order. */
  quoted: Turn[]
}

const OPENING = '### Task:'
const START = '<chat_history>'
const END = '</chat_history>'
/** A quoted message's first line: the roles Open WebUI writes (upper-cased), then its text. */
const QUOTED_LINE = /^(USER|ASSISTANT|SYSTEM|TOOL): ?(.*)$/

/** What the task line asks for, as Open WebUI's default prompts word it, and its name for that task. */
const TASKS: Array<[RegExp, string]> = [
  [/follow-up/i, 'follow_up_generation'],
  [/\btags?\b/i, 'tags_generation'],
  [/\btitle\b/i, 'title_generation'],
  [/search quer/i, 'query_generation'],
  [/autocomplet/i, 'autocomplete_generation'],
  [/image generation/i, 'image_prompt_generation']
]

/**
 * The task a request is, or null for a conversation turn. Only a request of one user message is one (a conversation
 * whose user typed a task prompt has its earlier turns before it).
 */
export function taskRequest(history: Turn[], text: string): TaskRequest | null {
  if (history.length) return null
  const body = text.trim()
  if (!body.startsWith(OPENING)) return null
  const start = body.indexOf(START)
  const end = body.indexOf(END, start + START.length)
  if (start < 0 || end < 0) return null
  const line = body.slice(OPENING.length).trimStart().split('\n', 1)[0]!
  const task = TASKS.find(([re]) => re.test(line))?.[1] ?? 'client_task'
  return { task, quoted: quotedTurns(body.slice(start + START.length, end)) }
}

/** The user and assistant messages of a `<chat_history>` block (a message Python wrote as `None` is empty). */
function quotedTurns(block: string): Turn[] {
  const all: Array<{ role: string; lines: string[] }> = []
  for (const line of block.replace(/^\n/, '').replace(/\n$/, '').split('\n')) {
    const m = QUOTED_LINE.exec(line)
    if (m) all.push({ role: m[1]!.toLowerCase(), lines: [m[2]!] })
    else all.at(-1)?.lines.push(line)
  }
  return all.flatMap(({ role, lines }) => {
    if (role !== 'user' && role !== 'assistant') return []
    const content = lines.join('\n')
    return [{ role: role as Turn['role'], content: content === 'None' ? '' : content }]
  })
}
