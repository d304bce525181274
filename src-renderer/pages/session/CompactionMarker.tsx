import type { SessionRef } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { RelTime } from '../../components/RelTime'
import { chainMessages } from './ChainCost'

/** Where one compression segment ends and the next begins: the conversation goes on, the context was compacted. */
export function CompactionMarker({
  profile,
  chain,
  segmentId
}: {
  profile: string
  chain: SessionRef[]
  segmentId: string
}) {
  const i = chain.findIndex((r) => r.id === segmentId)
  const seg = chain[i]
  const prev = i > 0 ? chain[i - 1] : undefined
  return (
    <div
      className="compaction-marker"
      // a note, not a separator: it holds a link to the part, and a separator's content is presentational (axe)
      role="note"
      aria-label="Context compacted"
      data-testid="compaction-marker"
      data-segment={segmentId}
    >
      <span className="compaction-line" aria-hidden />
      <span className="compaction-text">
        Context compacted
        {prev ? (
          <>
            {' '}
            · part {i} had {chainMessages(prev)} messages
          </>
        ) : null}
        {seg && (
          <>
            {' '}
            ·{' '}
            <a href={sessionHref(profile, seg.id)} title={seg.id}>
              part {i + 1} of {chain.length}
            </a>
            , {chainMessages(seg)} messages, started <RelTime at={seg.startedAt} />
          </>
        )}
      </span>
      <span className="compaction-line" aria-hidden />
    </div>
  )
}
