import { describe, expect, it } from 'vitest'
import { imageSegments } from './image-chips'

describe('imageSegments', () => {
  it('splits a stored image message into text and image chips', () => {
    expect(imageSegments('look at this\n[screenshot]')).toEqual([
      { kind: 'text', text: 'look at this' },
      { kind: 'image' }
    ])
    expect(imageSegments('[screenshot]\n[screenshot]\nboth\nlines')).toEqual([
      { kind: 'image' },
      { kind: 'image' },
      { kind: 'text', text: 'both\nlines' }
    ])
  })
  it('leaves text without a placeholder line (or with it inside a line) alone', () => {
    expect(imageSegments('plain')).toBeNull()
    expect(imageSegments('see [screenshot] here')).toBeNull()
    expect(imageSegments('[image: image/png, 2.0 MB]')).toBeNull()
  })
})
