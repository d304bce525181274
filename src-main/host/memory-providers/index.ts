// host/memory-providers/: loads each profile's external memory providers (plugins) and reports their health.
export { MemoryProviderHost } from './provider-host'
