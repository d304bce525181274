import { create } from 'zustand'

/** Which app-level overlay is open, and whether the profile sidebar is folded away. */
export const useOverlay = create<{ palette: boolean; shortcuts: boolean; railCollapsed: boolean }>()(() => ({
  palette: false,
  shortcuts: false,
  // narrow windows start with the sidebar folded; the choice then sticks for the session
  railCollapsed: typeof window !== 'undefined' && window.innerWidth <= 1100
}))
export const openPalette = () => useOverlay.setState({ palette: true, shortcuts: false })
export const openShortcuts = () => useOverlay.setState({ shortcuts: true, palette: false })
export const closeOverlays = () => useOverlay.setState({ palette: false, shortcuts: false })
export const toggleRail = () => useOverlay.setState((s) => ({ railCollapsed: !s.railCollapsed }))
