import { useEffect } from 'react'
import { useApp } from '../stores/app'
import { loadMemoryEvents } from '../stores/memory'
import { MemoryEntries } from './memory/MemoryEntries'
import { MemoryFeed } from './memory/MemoryFeed'
import { ProviderHealthPanel } from './memory/ProviderHealth'
import { ProviderPicker } from './memory/ProviderPicker'

export function MemoryPage() {
  const scope = useApp((s) => s.scope)
  useEffect(() => {
    void loadMemoryEvents()
  }, [scope])
  return (
    <div className="memory-page">
      <h1 className="sr-only">Memory</h1>
      <MemoryFeed />
      <div className="memory-side" tabIndex={0} role="region" aria-label="Memory providers and entries">
        <ProviderPicker profile={scope === 'all' ? null : scope} />
        <ProviderHealthPanel />
        <MemoryEntries profile={scope === 'all' ? null : scope} />
      </div>
    </div>
  )
}
