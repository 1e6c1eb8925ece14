import { EventEmitter } from 'node:events';

/**
 * In-process notifications for live screens (server-sent events). Another server process does not see
 * these; its clients fall back to polling, which the spec requires anyway (§4 refresh intervals).
 */
export interface AppEvents {
  /** Something about a conversation changed (message stored, phase changed, deleted …). */
  'conversation.changed': { conversationId: number; uuid: string };
  /** The unanswered-conversations list changed. */
  'unanswered.changed': { conversationId: number };
  /** An outbound message was queued (its outbox row committed): the send request a channel sender delivers. */
  'outbox.queued': { conversationId: number; messageId: number };
}

export class EventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    // Every open SSE stream is one listener; the default cap of 10 would warn under normal use.
    this.emitter.setMaxListeners(0);
  }
  emit<K extends keyof AppEvents>(name: K, payload: AppEvents[K]): void {
    this.emitter.emit(name, payload);
  }
  on<K extends keyof AppEvents>(name: K, listener: (payload: AppEvents[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
