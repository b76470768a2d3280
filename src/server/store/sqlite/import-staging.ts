/**
 * An import's entries staged out of sight (ADR 37): written a slice at a time into
 * `import_staged`, which no reader of the log reads, then moved into `activity` by the commit
 * that publishes the import, with ids after every entry the log holds then.
 */
import type Database from 'better-sqlite3';
import type { PublishedImport } from '../../domain/commit-io.js';
import { draftColumns } from '../../domain/entry-record.js';
import type { StagedEntry } from '../../domain/import.js';

/** The columns a staged entry and an entry of the log share, in this order. */
const COLUMNS = `group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta,
  detail, increments, decrements, hash, link_id, link_label, import_fingerprint, import_hash,
  note, counted_at`;

/** Writes a slice of an import's entries in one transaction. */
export function stageEntries(
  db: Database.Database,
  { importId, entries, now }: { importId: string; entries: readonly StagedEntry[]; now: number },
): void {
  const insert = db.prepare(
    `INSERT INTO import_staged (import_id, position, staged_at, undo_of, undone_by, ${COLUMNS})
     VALUES (@import_id, @position, @staged_at, @undo_of, @undone_by,
       ${COLUMNS.replace(/(\w+)/g, '@$1')})`,
  );
  db.transaction(() => {
    for (const { position, draft, hash, undoOf, undoneBy } of entries) {
      insert.run({
        note: null,
        counted_at: null,
        ...draftColumns(draft),
        import_id: importId,
        position,
        staged_at: now,
        undo_of: undoOf,
        undone_by: undoneBy,
        at: draft.at ?? now,
        hash,
      });
    }
  }).immediate();
}

/** The id the log's next entry takes (AUTOINCREMENT: after every id ever used). */
const nextEntryId = (db: Database.Database): number =>
  (
    db
      .prepare(
        `SELECT max(ifnull((SELECT seq FROM sqlite_sequence WHERE name = 'activity'), 0),
                    ifnull((SELECT max(id) FROM activity), 0)) + 1 AS next`,
      )
      .get() as { next: number }
  ).next;

/**
 * Moves a published import's entries into the log, inside the commit's transaction: ids from the
 * next the table would give, in the staged order, the undo links (positions) made ids. Throws if
 * any is missing (removed as stale), so nothing of the commit is applied.
 */
export function publishStaged(db: Database.Database, { importId, entries }: PublishedImport): void {
  const moving = db
    .prepare('SELECT group_id, from_id FROM import_moving WHERE import_id = ?')
    .get(importId) as { group_id: string; from_id: number } | undefined;
  if (moving) {
    // Moved already (moveStaged): the commit only ends the move, with the rest of the import.
    const { n } = db
      .prepare('SELECT count(*) AS n FROM activity WHERE group_id = ? AND id >= ?')
      .get(moving.group_id, moving.from_id) as { n: number };
    if (n !== entries) {
      throw new Error(`an import moved ${String(n)} of its ${String(entries)} entries`);
    }
    db.prepare('DELETE FROM import_moving WHERE import_id = ?').run(importId);
    return;
  }
  const next = nextEntryId(db);
  const moved = db
    .prepare(
      `INSERT INTO activity (id, undo_of, undone_by, ${COLUMNS})
       SELECT ? + position, ? + undo_of, ? + undone_by, ${COLUMNS}
       FROM import_staged WHERE import_id = ? ORDER BY position`,
    )
    .run(next, next, next, importId).changes;
  if (moved !== entries) {
    throw new Error(`an import published ${String(moved)} of its ${String(entries)} entries`);
  }
}

/**
 * Moves up to `limit` staged entries from `from` (a position) into the log, in one transaction,
 * ids from the next free one in order; the first slice also records the move (import_moving),
 * so a crash before the publishing commit is undone at start-up. Answers the slice's first id
 * and how many moved. Undo links are set by linkMoved once every slice is in.
 */
export function moveSlice(
  db: Database.Database,
  {
    importId,
    groupId,
    from,
    limit,
  }: { importId: string; groupId: string; from: number; limit: number },
): { firstId: number; moved: number } {
  return db
    .transaction(() => {
      const firstId = nextEntryId(db);
      if (from === 0) {
        db.prepare('INSERT INTO import_moving (import_id, group_id, from_id) VALUES (?, ?, ?)').run(
          importId,
          groupId,
          firstId,
        );
      }
      const moved = db
        .prepare(
          `INSERT INTO activity (id, ${COLUMNS})
         SELECT ? + position - ?, ${COLUMNS}
         FROM import_staged WHERE import_id = ? AND position >= ? AND position < ?
         ORDER BY position`,
        )
        .run(firstId, from, importId, from, from + limit).changes;
      return { firstId, moved };
    })
    .immediate();
}

/** Sets the moved entries' undo links (positions made ids by `idOf`), in one transaction. */
export function linkMoved(
  db: Database.Database,
  importId: string,
  idOf: (position: number) => number,
): void {
  const links = db
    .prepare(
      `SELECT position, undo_of, undone_by FROM import_staged
       WHERE import_id = ? AND (undo_of IS NOT NULL OR undone_by IS NOT NULL)`,
    )
    .all(importId) as { position: number; undo_of: number | null; undone_by: number | null }[];
  const link = db.prepare('UPDATE activity SET undo_of = ?, undone_by = ? WHERE id = ?');
  db.transaction(() => {
    for (const row of links) {
      link.run(
        row.undo_of === null ? null : idOf(row.undo_of),
        row.undone_by === null ? null : idOf(row.undone_by),
        idOf(row.position),
      );
    }
  }).immediate();
}

/** Removes up to `limit` moved entries of an import that will not be published; how many went. */
export function unmoveSlice(db: Database.Database, importId: string, limit: number): number {
  const moving = db
    .prepare('SELECT group_id, from_id FROM import_moving WHERE import_id = ?')
    .get(importId) as { group_id: string; from_id: number } | undefined;
  if (!moving) return 0;
  const removed = db
    .prepare(
      `DELETE FROM activity WHERE id IN (SELECT id FROM activity INDEXED BY activity_by_group
         WHERE group_id = ? AND id >= ? LIMIT ?)`,
    )
    .run(moving.group_id, moving.from_id, limit).changes;
  if (removed < limit) db.prepare('DELETE FROM import_moving WHERE import_id = ?').run(importId);
  return removed;
}

/** At start-up: what a crash left of imports being moved into the log (never published). */
export function undoUnfinishedMoves(db: Database.Database): void {
  db.exec(`DELETE FROM activity WHERE id IN (
             SELECT a.id FROM import_moving m JOIN activity a INDEXED BY activity_by_group
               ON a.group_id = m.group_id AND a.id >= m.from_id);
           DELETE FROM import_moving;`);
}

/** Removes up to `limit` of an import's staged rows; how many went. */
export function dropStagedSlice(db: Database.Database, importId: string, limit: number): number {
  return db
    .prepare(
      `DELETE FROM import_staged WHERE import_id = ? AND position IN (
         SELECT position FROM import_staged WHERE import_id = ? LIMIT ?)`,
    )
    .run(importId, importId, limit).changes;
}
