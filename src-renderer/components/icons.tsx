import type { ReactElement } from 'react'

/** Tiny inline icons (no icon font: CSP and bundle size). 16px, currentColor. */
const svg = (d: ReactElement, label?: string) => (
  <svg
    width="16"
    height="16"
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    strokeWidth="2"
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden={label ? undefined : true}
    role={label ? 'img' : undefined}
    aria-label={label}
  >
    {d}
  </svg>
)

export const SunIcon = () =>
  svg(
    <>
      <circle cx="12" cy="12" r="4" />
      <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
    </>
  )
export const MoonIcon = () => svg(<path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" />)
export const MonitorIcon = () =>
  svg(
    <>
      <rect x="2" y="3" width="20" height="14" rx="2" />
      <path d="M8 21h8M12 17v4" />
    </>
  )
export const PlusIcon = () => svg(<path d="M12 5v14M5 12h14" />)
export const StopIcon = () => svg(<rect x="6" y="6" width="12" height="12" rx="1" />)
export const SendIcon = () => svg(<path d="M22 2 11 13M22 2l-7 20-4-9-9-4 20-7z" />)
export const ChevronIcon = ({ open }: { open: boolean }) => svg(<path d={open ? 'm6 9 6 6 6-6' : 'm9 6 6 6-6 6'} />)
export const SearchIcon = () =>
  svg(
    <>
      <circle cx="11" cy="11" r="7" />
      <path d="m21 21-4.3-4.3" />
    </>
  )
export const CloseIcon = () => svg(<path d="M18 6 6 18M6 6l12 12" />)
export const RefreshIcon = () => svg(<path d="M21 12a9 9 0 1 1-3-6.7L21 8M21 3v5h-5" />)
