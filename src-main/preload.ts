import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { requestNames, type CallResult, type EventEnvelope, type Transport } from '@shared/contract'

// The renderer gets this transport and nothing else: no Node, no ipcRenderer, only known request names.
const known = new Set<string>(requestNames)

const transport = {
  invoke(name: string, input: unknown): Promise<CallResult> {
    if (!known.has(name))
      return Promise.resolve({ ok: false, error: { code: 'unknown_request', message: `Unknown request '${name}'` } })
    return ipcRenderer.invoke('caduceus:invoke', name, input)
  },
  subscribe(listener: (envelope: EventEnvelope) => void): () => void {
    const handler = (_event: IpcRendererEvent, envelope: EventEnvelope) => listener(envelope)
    ipcRenderer.on('caduceus:event', handler)
    return () => ipcRenderer.removeListener('caduceus:event', handler)
  }
} satisfies Transport

contextBridge.exposeInMainWorld('caduceus', transport)
