import { sessionHref } from '../app/routes'
import { shortId } from '../lib/format'
import { sessionLabel } from '../lib/session-label'
import { showControls } from '@shared/contract/control-chars'
import { useSessionLabel } from '../stores/session-titles'

/**
 * A link to a session by its name (`sessionLabel`), the id only while the name loads. Narrow cells cut the name
 * with an ellipsis, so the tooltip carries the whole name and the id.
 */
export function SessionName({ profile, id, testId }: { profile: string; id: string; testId?: string }) {
  const label = useSessionLabel(profile, id)
  return (
    <a
      href={sessionHref(profile, id)}
      // the same box while the name loads (the id in monospace): no jump when it lands, and a 24 px target meanwhile
      className={label ? 'session-name' : 'session-name mono'}
      title={label ? `${label} · ${id}` : id}
      data-testid={testId}
    >
      {label ?? shortId(id, 12)}
    </a>
  )
}

/**
 * A session's name as text where a row already carries its title (search results): untitled ones are looked up
 * and named by `sessionLabel`, "Untitled session · <when>" until then — never the raw id.
 */
export function SessionLabel({
  profile,
  id,
  title,
  at
}: {
  profile: string
  id: string
  title: string | null
  at?: number
}) {
  const looked = useSessionLabel(profile, title ? null : id)
  // a control character in the title (a colour sequence's ESC) as its picture, as sessionLabel draws it
  return <>{(title && showControls(title).trim()) || looked || sessionLabel({ at })}</>
}
