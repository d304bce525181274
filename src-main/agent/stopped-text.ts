/**
 * The text of a reply cut off mid-stream, read once: what the user was shown of it (a tag cut by the end was held
 * back, never shown), and what is kept of it — that text without reasoning blocks, trimmed, as upstream keeps it (its
 * streamed text has them scrubbed, and its stop path strips them again before saving the row), so the next turn's
 * history does not carry the model's private reasoning as something it said.
 * Golden: test/fixtures/upstream/stopped-reply-text (scripts/golden/stopped_reply_text.py).
 */
import { ThinkScrubber, withoutThinkBlocks } from './think-scrub'

export function cutReplyText(streamed: string): { shown: string; kept: string } {
  const shown = new ThinkScrubber().feed(streamed).text
  return { shown, kept: withoutThinkBlocks(shown).trim() }
}
