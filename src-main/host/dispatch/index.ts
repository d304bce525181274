// host/dispatch/: what every transport talks to — the dispatcher (one handler per contract request) and the event bus.
export { createDispatcher, type Dispatcher, type HandlerMap } from './dispatch'
export { EventBus } from './event-bus'
