// API message content read as upstream's API server reads it, and shown exactly as the store shows it (so a
// resent image turn is recognised as the stored one).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { displayContent, encodeContent } from '../store/content-codec'
import { readContent, readText } from './content'
import { splitConversation } from './chat-completions'
import { planConversation, type ConversationSessions } from './conversation'
import { pyRepr } from '@shared/contract/py-text'

const PNG = `data:image/png;base64,${'A'.repeat(4000)}`

describe('readContent', () => {
  it('collapses text-only parts to one string, newline-joined as upstream', () => {
    expect(readContent([{ type: 'text', text: 'a' }, { type: 'input_text', text: 'b' }, 'c'], 'x')).toEqual({
      text: 'a\nb\nc'
    })
  })

  it('keeps image parts in upstream canonical shape', () => {
    const c = readContent([{ type: 'input_image', image_url: 'https://ex.org/cat.jpg?x=1', detail: 'high' }], 'x')
    expect(c.parts).toEqual([{ type: 'image_url', image_url: { url: 'https://ex.org/cat.jpg?x=1', detail: 'high' } }])
  })

  it.each([
    [[{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }], /invalid_image_url|http\(s\)/],
    [[{ type: 'image_url', image_url: { url: 'data:text/plain,hi' } }], /only image data: URLs/],
    [[{ type: 'input_file', file_id: 'f' }], /files and documents are not supported/],
    [[{ type: 'audio' }], /unsupported content part type "audio"/]
  ])('refuses %j with a 400', (content, message) => {
    expect(() => readContent(content, 'messages[0].content')).toThrow(message)
  })
})

describe('the text an image message is compared on', () => {
  it.each([
    [
      [
        { type: 'text' as const, text: 'look' },
        { type: 'image_url' as const, image_url: { url: PNG } }
      ]
    ],
    [[{ type: 'image_url' as const, image_url: { url: 'https://ex.org/a/cat.jpg?s=1' } }]],
    [[{ type: 'image_url' as const, image_url: { url: `data:image/jpeg;base64,${'B'.repeat(3_000_000)}` } }]]
  ])('matches the store display of the same parts', (parts) => {
    expect(readContent(parts, 'x').text).toBe(displayContent(encodeContent(parts)))
  })
})

// scripts/golden/api_session_ids.py: the id upstream's API server gives a conversation sent without a session header,
// from its system prompt and first user message (a first message with images: Python's repr of its parts).
describe('the session id of a conversation without a session header', () => {
  const golden = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/api-session-ids/cases.json'), 'utf8')
  ) as {
    cases: Array<{ system: string | null; content: unknown; id: string }>
    systemParts: Array<{ system: unknown; content: string; id: string }>
  }
  // a profile that has none of these conversations yet: each request starts one, under the id it derives
  const none = {
    turns: () => null,
    turnsBefore: () => ({ turns: [], more: false }),
    branches: () => [],
    opening: () => [],
    replying: () => [],
    replied: () => [],
    seed: async () => {},
    settleTask: async () => '',
    retrying: (attempt) => attempt()
  } as ConversationSessions

  it('is the id upstream derives, for every recorded first message', async () => {
    expect(golden.cases.length).toBeGreaterThan(15)
    for (const c of golden.cases) {
      const { text, parts } = readContent(c.content, 'messages[0].content')
      const plan = await planConversation(none, {
        system: c.system ?? '',
        history: [],
        text,
        ...(parts ? { parts } : {}),
        nowSec: 0
      })
      expect([c.content, plan]).toEqual([c.content, { kind: 'new', sessionId: c.id }])
    }
  })

  it('a retried image turn that failed unanswered answers the stored message, not a new branch', async () => {
    const { text, parts } = readContent(
      [
        { type: 'text', text: 'what is this' },
        { type: 'image_url', image_url: { url: PNG } }
      ],
      'messages[0].content'
    )
    const first = await planConversation(none, {
      system: '',
      history: [],
      text,
      ...(parts ? { parts } : {}),
      nowSec: 0
    })
    // stored as upstream's agent stores it: the text, each image as "[screenshot]"; no answer yet
    const stored = {
      turns: () => ({
        whole: true,
        turns: [{ id: 7, rows: [7], at: 0, role: 'user' as const, content: 'what is this\n[screenshot]' }]
      }),
      turnsBefore: () => ({ turns: [], more: false }),
      branches: () => [],
      opening: () => [],
      replying: () => [],
      replied: () => [],
      seed: async () => {},
      settleTask: async () => '',
      retrying: (attempt) => attempt()
    } as ConversationSessions
    const retry = await planConversation(stored, {
      system: '',
      history: [],
      text,
      ...(parts ? { parts } : {}),
      nowSec: 0
    })
    expect(retry).toEqual({ kind: 'answer', sessionId: first.sessionId, messageId: 7 })
  })

  it('keys on a system message sent as parts as upstream flattens it (newline-joined text, nested lists)', async () => {
    expect(golden.systemParts.length).toBeGreaterThan(4)
    for (const c of golden.systemParts) {
      const req = splitConversation([
        { role: 'system', content: c.system },
        { role: 'user', content: c.content }
      ])
      const plan = await planConversation(none, {
        system: req.idSystem ?? '',
        history: req.history,
        text: req.text,
        nowSec: 0
      })
      expect([c.system, plan]).toEqual([c.system, { kind: 'new', sessionId: c.id }])
    }
  })

  it('writes strings as Python does', () => {
    expect(
      pyRepr(["it's", 'say "hi"', `both ' and "`, 'a\\b\n\t\r', 'é東🚀', '\x01\x7f\u00a0\u200b\u2028\ufeff '])
    ).toBe(
      `["it's", 'say "hi"', 'both \\' and "', 'a\\\\b\\n\\t\\r', 'é東🚀', '\\x01\\x7f\\xa0\\u200b\\u2028\\ufeff ']`
    )
    expect(pyRepr({ a: [1, true, null], b: { c: 'd' } })).toBe("{'a': [1, True, None], 'b': {'c': 'd'}}")
  })
})

// System content read as upstream's _normalize_chat_content reads it (outputs below recorded by
// running upstream's function on these inputs with /usr/bin/python3). The text is hashed into the conversation id.
describe('readText against upstream', () => {
  it('a part whose type is a list is not a text part (Python str(["text"]) is "[\'text\']", not "text")', () => {
    expect(readText([{ type: ['text'], text: 'hi' }, 'b'])).toBe('b')
  })

  it('the length cap counts code points, as Python len() does (astral characters count once)', () => {
    const rockets = '\u{1F680}'.repeat(40_000) // 40,000 code points, 80,000 UTF-16 units
    expect(readText([rockets, 'tail'])).toBe(`${rockets}\ntail`)
  })
})
