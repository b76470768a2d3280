/**
 * The SQLite store's schema, one step per version: a database at version n runs steps n+1
 * onwards, in order, all in one transaction, and never a step twice. A new table or column
 * is a new step at the end; a step that has shipped is never edited (databases already past it
 * would never see the edit).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE counter_groups (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     display_name TEXT NOT NULL,
     profile_image_url TEXT,
     access_key_hash TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     seq INTEGER NOT NULL DEFAULT 0
   ) STRICT;
   CREATE TABLE counters (
     id TEXT PRIMARY KEY,
     group_id TEXT NOT NULL REFERENCES counter_groups(id),
     name TEXT NOT NULL,
     description TEXT NOT NULL,
     value INTEGER NOT NULL,
     increment_step INTEGER NOT NULL CHECK (increment_step >= 1),
     decrement_step INTEGER NOT NULL CHECK (decrement_step >= 1),
     thumbnail_url TEXT,
     created_at INTEGER NOT NULL,
     created_seq INTEGER NOT NULL,
     version INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX counters_by_group ON counters (group_id, created_at, created_seq);
   CREATE TABLE operation_ids (
     group_id TEXT NOT NULL,
     op_id TEXT NOT NULL,
     result TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (group_id, op_id)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX operation_ids_by_age ON operation_ids (created_at);`,
  // 2: the activity log (shared/activity.ts, ADR 0007). AUTOINCREMENT: an id is never reused
  // after pruning, so "newer than id N" stays true for every client.
  `CREATE TABLE activity (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     group_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     kind TEXT NOT NULL,
     counter_id TEXT,
     counter_name TEXT,
     value_after INTEGER,
     delta INTEGER,
     detail TEXT,
     undo_of INTEGER,
     undone_by INTEGER
   ) STRICT;
   CREATE INDEX activity_by_group ON activity (group_id, id);
   CREATE INDEX activity_by_counter ON activity (counter_id, id) WHERE counter_id IS NOT NULL;
   CREATE INDEX activity_by_age ON activity (at);
   ALTER TABLE operation_ids ADD COLUMN activity_id INTEGER;`,
  // 3: view-only links (ADR 9): the hash of the view-only key, null while there is none.
  `ALTER TABLE counter_groups ADD COLUMN view_key_hash TEXT;`,
  // 4: what each operation id meant (domain/operation-ids.ts fingerprintOf; null for older rows),
  // and the one-row table the health check's write probe updates.
  `ALTER TABLE operation_ids ADD COLUMN fingerprint TEXT;
   CREATE TABLE health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL) STRICT;`,
  // 5: a counter's history as index seeks by time (one seek per chart bucket, never a
  // scan of every entry of the counter).
  `CREATE INDEX activity_by_counter_time ON activity (counter_id, at, id) WHERE counter_id IS NOT NULL;`,
  // 6: goals, limits, periods, order and sections; tallies' amounts; ended periods.
  // ADR 19. Every new column is nullable or has a default: existing counters stay as they were.
  `ALTER TABLE counters ADD COLUMN goal INTEGER;
   ALTER TABLE counters ADD COLUMN min_value INTEGER;
   ALTER TABLE counters ADD COLUMN max_value INTEGER;
   ALTER TABLE counters ADD COLUMN reset_period TEXT;
   ALTER TABLE counters ADD COLUMN start_value INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE counters ADD COLUMN section TEXT;
   ALTER TABLE counters ADD COLUMN position INTEGER;
   ALTER TABLE counters ADD COLUMN period_start INTEGER;
   ALTER TABLE counters ADD COLUMN next_reset_at INTEGER;
   ALTER TABLE counters ADD COLUMN closed_total INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX counters_by_next_reset ON counters (next_reset_at) WHERE next_reset_at IS NOT NULL;
   DROP INDEX counters_by_group;
   CREATE INDEX counters_in_order
     ON counters (group_id, position IS NULL, position, created_at, created_seq);
   ALTER TABLE counter_groups ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
   ALTER TABLE counter_groups ADD COLUMN week_start INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE counter_groups ADD COLUMN section_limits TEXT;
   ALTER TABLE activity ADD COLUMN increments INTEGER;
   ALTER TABLE activity ADD COLUMN decrements INTEGER;
   CREATE TABLE counter_periods (
     counter_id TEXT NOT NULL,
     group_id TEXT NOT NULL,
     start_at INTEGER NOT NULL,
     end_at INTEGER NOT NULL,
     final_value INTEGER NOT NULL,
     PRIMARY KEY (counter_id, start_at)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX counter_periods_by_group ON counter_periods (group_id, start_at);`,
  // 7: (ADR 21) one index per counter: entry times never go backwards (lastBatchAt), so
  // (counter_id, at, id) orders a counter's entries as (counter_id, id) did, and each tap writes
  // one index leaf fewer.
  `DROP INDEX activity_by_counter;`,
  // 8: (ADR 21) operation ids in a rowid table: rows are appended in batch order, and
  // only the (group_id, op_id) index, ~80-byte entries, lands on a leaf of its own per tap
  // (WITHOUT ROWID kept the whole ~200-byte row there: more leaves, more splits). Copied in
  // key order, the fastest (pruning went by created_at's index; by rowid since 9).
  `CREATE TABLE operation_ids_by_row (
     group_id TEXT NOT NULL,
     op_id TEXT NOT NULL,
     result TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     activity_id INTEGER,
     fingerprint TEXT,
     PRIMARY KEY (group_id, op_id)
   ) STRICT;
   INSERT INTO operation_ids_by_row (group_id, op_id, result, created_at, activity_id, fingerprint)
     SELECT group_id, op_id, result, created_at, activity_id, fingerprint FROM operation_ids;
   DROP TABLE operation_ids;
   ALTER TABLE operation_ids_by_row RENAME TO operation_ids;
   CREATE INDEX operation_ids_by_age ON operation_ids (created_at);`,
  // 9: (ADR 22) no index by time: entries and operation ids are appended in time order
  // (batch times never go backwards, migration 7; operation ids are rowid rows, migration 8), so
  // pruning finds its boundary by rowid (olderThan). One leaf fewer per tap for each.
  `DROP INDEX activity_by_age;
   DROP INDEX operation_ids_by_age;`,
  // 10: (ADR 24) numbered taps: one row per group and client session, rewritten in
  // place (domain/numbered-ids.ts), instead of one operation-id row per tap. A rowid table, so the
  // hourly prune walks it in rowid ranges without an index by time.
  `CREATE TABLE operation_sessions (
     group_id TEXT NOT NULL,
     session TEXT NOT NULL,
     high INTEGER NOT NULL,
     seen TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (group_id, session)
   ) STRICT;`,
  // 11: alerts (ADR 29). A group's rules in its own row (read with the group, so a group
  // without rules costs a tap nothing); the outbox the commit writes fired alerts to, in the
  // same transaction; each destination's delivery log; Web Push subscriptions; the server's
  // settings (its VAPID keys). Times are epoch ms.
  `ALTER TABLE counter_groups ADD COLUMN alerts TEXT;
   CREATE TABLE alert_outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     group_id TEXT NOT NULL,
     destination_id TEXT NOT NULL,
     body TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     lease_until INTEGER NOT NULL DEFAULT 0,
     progress TEXT
   ) STRICT;
   CREATE INDEX alert_outbox_by_destination ON alert_outbox (group_id, destination_id, id);
   CREATE INDEX alert_outbox_by_due ON alert_outbox (next_attempt_at);
   CREATE TABLE alert_deliveries (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     group_id TEXT NOT NULL,
     destination_id TEXT NOT NULL,
     at INTEGER NOT NULL,
     type TEXT NOT NULL,
     test INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     status INTEGER,
     error TEXT,
     attempt INTEGER NOT NULL,
     duration_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX alert_deliveries_by_destination ON alert_deliveries (group_id, destination_id, id);
   CREATE INDEX alert_deliveries_by_time ON alert_deliveries (group_id, at);
   CREATE TABLE push_subscriptions (
     group_id TEXT NOT NULL,
     endpoint TEXT NOT NULL,
     p256dh TEXT NOT NULL,
     auth TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (group_id, endpoint)
   ) STRICT;
   CREATE TABLE server_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;`,
  // 12: (ADR 30) the activity log as a hash chain: each entry's hash; the group's newest hash
  // (its head) and, once old entries were pruned, the hash of the last one removed (its anchor).
  `ALTER TABLE activity ADD COLUMN hash TEXT;
   ALTER TABLE counter_groups ADD COLUMN log_head TEXT;
   ALTER TABLE counter_groups ADD COLUMN log_anchor TEXT;`,
  // 13: tap links: the group's links (JSON, domain/tap-links.ts) and, on each entry, the link it
  // was made through (its label then), which the links list and tallies by link add up.
  `ALTER TABLE counter_groups ADD COLUMN tap_links TEXT;
   ALTER TABLE activity ADD COLUMN link_id TEXT;
   ALTER TABLE activity ADD COLUMN link_label TEXT;
   CREATE INDEX activity_by_link ON activity (group_id, link_id) WHERE link_id IS NOT NULL;`,
  // 14: imports (ADR 37): an imported entry's fingerprint (what recognises it when the file is
  // imported again, looked up by group) and its hash in the log it came from.
  `ALTER TABLE activity ADD COLUMN import_fingerprint TEXT;
   ALTER TABLE activity ADD COLUMN import_hash TEXT;
   CREATE INDEX activity_by_import ON activity (group_id, import_fingerprint)
     WHERE import_fingerprint IS NOT NULL;`,
  // 15: (ADR 36) a note on a change and the time a change was counted for, when entered
  // afterwards (epoch ms). Charts read a counter's few such entries through their own partial
  // index: a plain tap writes neither column nor index.
  `ALTER TABLE activity ADD COLUMN note TEXT;
   ALTER TABLE activity ADD COLUMN counted_at INTEGER;
   CREATE INDEX activity_counted_earlier ON activity (group_id, counter_id)
     WHERE counted_at IS NOT NULL;`,
  // 16: the log's noted entries (a note or an earlier time), of a group and of a counter, newest
  // first for the history dialog and the By member detail. Partial: a plain tap writes no leaf.
  `CREATE INDEX activity_noted ON activity (group_id, id)
     WHERE note IS NOT NULL OR counted_at IS NOT NULL;
   CREATE INDEX activity_noted_by_counter ON activity (counter_id, id)
     WHERE note IS NOT NULL OR counted_at IS NOT NULL;`,
  // 17: (ADR 37) an import's entries staged out of sight until its commit publishes them
  // (store/sqlite/import-staging.ts): no reader of the log reads this table. Undo links are
  // positions among the import's entries; staged_at (epoch ms) finds what a crash left. An
  // import whose entries are being moved into the log names its group and first entry id in
  // import_moving until the commit that publishes it removes the row.
  `CREATE TABLE import_staged (
     import_id TEXT NOT NULL,
     position INTEGER NOT NULL,
     staged_at INTEGER NOT NULL,
     undo_of INTEGER,
     undone_by INTEGER,
     group_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     kind TEXT NOT NULL,
     counter_id TEXT,
     counter_name TEXT,
     value_after INTEGER,
     delta INTEGER,
     detail TEXT,
     increments INTEGER,
     decrements INTEGER,
     hash TEXT NOT NULL,
     link_id TEXT,
     link_label TEXT,
     import_fingerprint TEXT,
     import_hash TEXT,
     note TEXT,
     counted_at INTEGER,
     PRIMARY KEY (import_id, position)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE import_moving (
     import_id TEXT PRIMARY KEY,
     group_id TEXT NOT NULL,
     from_id INTEGER NOT NULL
   ) STRICT;`,
];
