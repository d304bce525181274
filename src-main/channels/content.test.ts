// API message content read as upstream's API server reads it, and shown exactly as the store shows it (so a
// resent image turn is recognised as the stored one).
import { describe, expect, it } from 'vitest'
import { displayContent, encodeContent } from '../store/content-codec'
import { readContent } from './content'

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
