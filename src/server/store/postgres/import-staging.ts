/**
 * An import's entries staged out of sight (ADR 37): written a slice at a time into
 * `import_staged`, which no reader of the log reads, then moved into `activity` by the commit
 * that publishes the import, with ids after every entry the log holds then.
 */
import type pg from 'pg';
import type { PublishedImport } from '../../domain/commit-io.js';
import { draftColumns } from '../../domain/entry-record.js';
import type { StagedEntry } from '../../domain/import.js';

/** The columns a staged entry and an entry of the log share, in this order. */
const COLUMNS = `group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta,
  detail, increments, decrements, hash, link_id, link_label, import_fingerprint, import_hash,
  note, counted_at`;

/** A slice of an import's entries in one statement (its own transaction). */
export const STAGE_ENTRIES = `
  INSERT INTO import_staged (import_id, position, undo_of, undone_by, ${COLUMNS})
  SELECT $1, e.position, e.undo_of, e.undone_by, e.group_id, e.seq,
    to_timestamp(e.at / 1000), e.actor, e.kind, e.counter_id, e.counter_name, e.value_after,
    e.delta, e.detail, e.increments, e.decrements, e.hash, e.link_id, e.link_label,
    e.import_fingerprint, e.import_hash, e.note, to_timestamp(e.counted_at / 1000)
  FROM json_to_recordset($2::json) AS e(position int, undo_of int, undone_by int, group_id text,
    seq bigint, at double precision, actor text, kind text, counter_id text, counter_name text,
    value_after bigint, delta bigint, detail text, increments bigint, decrements bigint,
    hash text, link_id text, link_label text, import_fingerprint text, import_hash text,
    note text, counted_at double precision)`;

/** A staged entry as STAGE_ENTRIES reads it (a column a draft leaves out reads as null). */
export const stagedJson = ({ position, draft, hash, undoOf, undoneBy }: StagedEntry) => ({
  ...draftColumns(draft),
  position,
  undo_of: undoOf,
  undone_by: undoneBy,
  at: draft.at,
  hash,
});

/**
 * Moves a published import's entries into the log, inside the commit's transaction (the group's
 * row is locked): new ids from the sequence, numbered in order, so position p takes the p+1-th,
 * and the undo links (positions) become ids. Answers how many moved.
 */
const PUBLISH = `
  WITH ids AS MATERIALIZED (
    SELECT id, row_number() OVER (ORDER BY id) - 1 AS position
    FROM (SELECT nextval('activity_id_seq') AS id FROM generate_series(1, $2::int)) s),
  moved AS (
    INSERT INTO activity (id, undo_of, undone_by, ${COLUMNS})
    SELECT i.id, u.id, b.id, ${COLUMNS.replace(/(\w+)/g, 's.$1')}
    FROM import_staged s
    JOIN ids i ON i.position = s.position
    LEFT JOIN ids u ON u.position = s.undo_of
    LEFT JOIN ids b ON b.position = s.undone_by
    WHERE s.import_id = $1
    RETURNING 1)
  SELECT count(*)::int AS moved FROM moved`;

/**
 * How long the publish may take, ms, server and client side: it copies up to 100,000 rows with
 * their indexes, far longer than any other statement of a commit (the pool's reply timeout
 * would take it for a lost connection).
 */
const PUBLISH_TIMEOUT_MS = 120_000;

/** Publishes the import's staged entries; throws (the commit rolls back) if any is missing. */
export async function publishStaged(
  client: pg.PoolClient,
  { importId, entries }: PublishedImport,
): Promise<void> {
  await client.query(`SET LOCAL statement_timeout = ${String(PUBLISH_TIMEOUT_MS)}`);
  const { rows } = await client.query<{ moved: number }>(
    Object.assign(
      { name: 'tally-import-publish', text: PUBLISH, values: [importId, entries] },
      // pg reads a query's own client-side timeout from its config (not in its types).
      { query_timeout: PUBLISH_TIMEOUT_MS },
    ),
  );
  const moved = rows[0]?.moved ?? 0;
  if (moved !== entries) {
    throw new Error(`an import published ${String(moved)} of its ${String(entries)} entries`);
  }
}

/** Removes up to `limit` of an import's staged rows (its own statement); how many went. */
export const DROP_STAGED_SLICE = `
  DELETE FROM import_staged WHERE import_id = $1 AND position IN (
    SELECT position FROM import_staged WHERE import_id = $1 LIMIT $2)`;

/** Removes what imports staged before a time and never published (an instance that stopped). */
export const DROP_STALE_STAGED = `DELETE FROM import_staged WHERE staged_at < to_timestamp($1::double precision / 1000)`;
