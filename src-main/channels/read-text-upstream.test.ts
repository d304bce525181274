import { describe, expect, it } from 'vitest'
import { readText } from './content'

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
