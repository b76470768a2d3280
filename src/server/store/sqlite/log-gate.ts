/**
 * Readers of a group's log wait while an import's entries are moved into it (ADR 37): the move
 * takes several short transactions, and between them the log holds some of the import's entries
 * and not yet its head. Only that group's readers wait; every other group's are served as ever.
 */
export class LogGate {
  private readonly closed = new Map<string, Promise<void>>();
  private readonly reading = new Map<string, number>();
  private readonly idle = new Map<string, () => void>();

  /** Runs a read of the group's log once no import is being moved into it. */
  async read<T>(groupId: string, read: () => Promise<T>): Promise<T> {
    for (let closed = this.closed.get(groupId); closed; closed = this.closed.get(groupId)) {
      await closed;
    }
    this.reading.set(groupId, (this.reading.get(groupId) ?? 0) + 1);
    try {
      return await read();
    } finally {
      const left = (this.reading.get(groupId) ?? 1) - 1;
      if (left > 0) this.reading.set(groupId, left);
      else {
        this.reading.delete(groupId);
        this.idle.get(groupId)?.();
      }
    }
  }

  /**
   * Closes the group's log to new readers and resolves once the reads under way have ended (a
   * read in the worker thread sees the file as it was when it began); the returned function
   * opens it again.
   */
  async close(groupId: string): Promise<() => void> {
    let open = (): void => undefined;
    this.closed.set(
      groupId,
      new Promise<void>((resolve) => {
        open = resolve;
      }),
    );
    if ((this.reading.get(groupId) ?? 0) > 0) {
      await new Promise<void>((resolve) => {
        this.idle.set(groupId, resolve);
      });
    }
    this.idle.delete(groupId);
    return () => {
      this.closed.delete(groupId);
      open();
    };
  }
}
