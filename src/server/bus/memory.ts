import type { Change } from '../../shared/protocol.js';
import type { Bus, ChangeListener } from './types.js';

/** The single-instance bus: committed changes go straight to this process's subscribers. */
export class MemoryBus implements Bus {
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private readonly accessListeners = new Set<(groupId: string) => void>();

  publish(groupId: string, changes: readonly Change[]): void {
    if (
      this.accessListeners.size > 0 &&
      changes.some((change) => change.type === 'group.accessChanged')
    ) {
      for (const listener of this.accessListeners) listener(groupId);
    }
    const listeners = this.listeners.get(groupId);
    if (!listeners || changes.length === 0) return;
    for (const listener of listeners) listener(changes);
  }

  subscribe(groupId: string, listener: ChangeListener): () => void {
    let listeners = this.listeners.get(groupId);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(groupId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.listeners.get(groupId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(groupId);
    };
  }

  onAccessChange(listener: (groupId: string) => void): () => void {
    this.accessListeners.add(listener);
    return () => {
      this.accessListeners.delete(listener);
    };
  }

  /** One process: no other instance to tell or hear from. */
  publishPresence(): void {
    return undefined;
  }

  onPresence(): () => void {
    return () => undefined;
  }

  /** One process has no feed to lose. */
  onReconnect(_listener: () => void): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    this.listeners.clear();
    this.accessListeners.clear();
    return Promise.resolve();
  }
}
