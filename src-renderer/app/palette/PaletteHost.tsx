import type { Route } from '../routes'
import { CommandPalette } from './CommandPalette'
import { ShortcutsDialog } from './ShortcutsDialog'
import { closeOverlays, useOverlay } from './state'

export function PaletteHost({ route }: { route: Route }) {
  const { palette, shortcuts } = useOverlay()
  return (
    <>
      {palette && <CommandPalette route={route} onClose={closeOverlays} />}
      {shortcuts && <ShortcutsDialog onClose={closeOverlays} />}
    </>
  )
}
