/**
 * The text kept of a reply stopped mid-stream: what the user was shown of it, without reasoning blocks, as upstream
 * keeps it (its streamed text has them scrubbed, and its stop path strips them again before saving the row), so the
 * next turn's history does not carry the model's private reasoning as something it said.
 * Golden: test/fixtures/upstream/stopped-reply-text (scripts/golden/stopped_reply_text.py).
 */
import { ThinkScrubber, withoutThinkBlocks } from './think-scrub'

/** What a stream had shown of the raw text it got: a tag cut by the stop was held back, never shown. */
export function shownText(streamed: string): string {
  return new ThinkScrubber().feed(streamed).text
}

export function stoppedReplyText(streamed: string): string {
  return withoutThinkBlocks(shownText(streamed)).trim()
}
