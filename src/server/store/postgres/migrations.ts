/**
 * The PostgreSQL store's schema, one step per version: a database at version n runs steps n+1
 * onwards, in order, each in its own transaction, and never a step twice. A new table or column
 * is a new step at the end; a step that has shipped is never edited (databases already past it
 * would never see the edit).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE counter_groups (
     id text PRIMARY KEY,
     name text NOT NULL UNIQUE,
     display_name text NOT NULL,
     profile_image_url text,
     access_key_hash text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     seq bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE counters (
     id text PRIMARY KEY,
     group_id text NOT NULL REFERENCES counter_groups(id),
     name text NOT NULL,
     description text NOT NULL,
     value bigint NOT NULL,
     increment_step bigint NOT NULL CHECK (increment_step >= 1),
     decrement_step bigint NOT NULL CHECK (decrement_step >= 1),
     thumbnail_url text,
     created_at timestamptz NOT NULL,
     created_seq bigint NOT NULL,
     version bigint NOT NULL
   );
   CREATE INDEX counters_by_group ON counters (group_id, created_at, created_seq);
   CREATE TABLE operation_ids (
     group_id text NOT NULL,
     op_id text NOT NULL,
     result jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (group_id, op_id)
   );
   CREATE INDEX operation_ids_by_age ON operation_ids (created_at);`,
  // 2: the activity log (shared/activity.ts, ADR 0007). BRIN on `at`: entries arrive in time
  // order, so a few kilobytes of index serve the age-based pruning.
  `CREATE TABLE activity (
     id bigserial PRIMARY KEY,
     group_id text NOT NULL,
     seq bigint NOT NULL,
     at timestamptz NOT NULL DEFAULT now(),
     actor text NOT NULL,
     kind text NOT NULL,
     counter_id text,
     counter_name text,
     value_after bigint,
     delta bigint,
     detail text,
     undo_of bigint,
     undone_by bigint
   );
   CREATE INDEX activity_by_group ON activity (group_id, id);
   CREATE INDEX activity_by_counter ON activity (counter_id, id) WHERE counter_id IS NOT NULL;
   CREATE INDEX activity_by_age ON activity USING brin (at);
   ALTER TABLE operation_ids ADD COLUMN activity_id bigint;`,
  // 3: view-only links (ADR 9): the hash of the view-only key, null while there is none.
  `ALTER TABLE counter_groups ADD COLUMN view_key_hash text;`,
  // 4: what each operation id meant (domain/operation-ids.ts fingerprintOf; null for older rows),
  // and the one-row table the health check's write probe updates.
  `ALTER TABLE operation_ids ADD COLUMN fingerprint text;
   CREATE TABLE health_probe (id integer PRIMARY KEY CHECK (id = 1), at timestamptz NOT NULL);`,
  // 5: a counter's history as index seeks by time (one seek per chart bucket, never a
  // scan of every entry of the counter).
  `CREATE INDEX activity_by_counter_time ON activity (counter_id, at, id) WHERE counter_id IS NOT NULL;`,
  // 6: goals, limits, periods, order and sections; tallies' amounts; ended periods.
  // ADR 19. Times of periods are epoch ms (bigint), as domain/periods.ts computes them.
  `ALTER TABLE counters ADD COLUMN goal bigint, ADD COLUMN min_value bigint,
     ADD COLUMN max_value bigint, ADD COLUMN reset_period text,
     ADD COLUMN start_value bigint NOT NULL DEFAULT 0, ADD COLUMN section text,
     ADD COLUMN position bigint, ADD COLUMN period_start bigint, ADD COLUMN next_reset_at bigint,
     ADD COLUMN closed_total bigint NOT NULL DEFAULT 0;
   CREATE INDEX counters_by_next_reset ON counters (next_reset_at) WHERE next_reset_at IS NOT NULL;
   DROP INDEX counters_by_group;
   CREATE INDEX counters_in_order
     ON counters (group_id, (position IS NULL), position, created_at, created_seq);
   ALTER TABLE counter_groups ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC',
     ADD COLUMN week_start integer NOT NULL DEFAULT 1, ADD COLUMN section_limits text;
   ALTER TABLE activity ADD COLUMN increments bigint, ADD COLUMN decrements bigint;
   CREATE TABLE counter_periods (
     counter_id text NOT NULL,
     group_id text NOT NULL,
     start_at bigint NOT NULL,
     end_at bigint NOT NULL,
     final_value bigint NOT NULL,
     PRIMARY KEY (counter_id, start_at)
   );
   CREATE INDEX counter_periods_by_group ON counter_periods (group_id, start_at);`,
  // 7: (ADR 24) numbered taps: one row per group and client session, rewritten in
  // place (domain/numbered-ids.ts), instead of one operation-id row per tap. No index by time: an
  // updated column in an index would make every update write that index too.
  `CREATE TABLE operation_sessions (
     group_id text NOT NULL,
     session text NOT NULL,
     high bigint NOT NULL,
     seen text NOT NULL,
     updated_at timestamptz NOT NULL,
     PRIMARY KEY (group_id, session)
   );`,
  // 8: alerts (ADR 29). A group's rules in its own row (read with the group it locks, so a
  // group without rules costs a tap nothing); the outbox the commit writes fired alerts to, in
  // the same transaction, claimed by one instance at a time (FOR UPDATE SKIP LOCKED and a
  // lease); each destination's delivery log; Web Push subscriptions; the server's settings
  // (its VAPID keys, shared by every instance). Times are epoch ms.
  `ALTER TABLE counter_groups ADD COLUMN alerts text;
   CREATE TABLE alert_outbox (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     group_id text NOT NULL,
     destination_id text NOT NULL,
     body text NOT NULL,
     created_at bigint NOT NULL,
     attempts integer NOT NULL DEFAULT 0,
     next_attempt_at bigint NOT NULL,
     lease_until bigint NOT NULL DEFAULT 0,
     progress text
   );
   CREATE INDEX alert_outbox_by_destination ON alert_outbox (group_id, destination_id, id);
   CREATE INDEX alert_outbox_by_due ON alert_outbox (next_attempt_at);
   CREATE TABLE alert_deliveries (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     group_id text NOT NULL,
     destination_id text NOT NULL,
     at bigint NOT NULL,
     type text NOT NULL,
     test boolean NOT NULL,
     outcome text NOT NULL,
     status integer,
     error text,
     attempt integer NOT NULL,
     duration_ms integer NOT NULL
   );
   CREATE INDEX alert_deliveries_by_destination ON alert_deliveries (group_id, destination_id, id);
   CREATE INDEX alert_deliveries_by_time ON alert_deliveries (group_id, at);
   CREATE TABLE push_subscriptions (
     group_id text NOT NULL,
     endpoint text NOT NULL,
     p256dh text NOT NULL,
     auth text NOT NULL,
     created_at bigint NOT NULL,
     PRIMARY KEY (group_id, endpoint)
   );
   CREATE TABLE server_settings (name text PRIMARY KEY, value text NOT NULL);`,
  // 9: (ADR 30) the activity log as a hash chain: each entry's hash; the group's newest hash
  // (its head) and, once old entries were pruned, the hash of the last one removed (its anchor).
  `ALTER TABLE activity ADD COLUMN hash text;
   ALTER TABLE counter_groups ADD COLUMN log_head text, ADD COLUMN log_anchor text;`,
  // 10: tap links: the group's links (JSON, domain/tap-links.ts) and, on each entry, the link it
  // was made through (its label then), which the links list and tallies by link add up.
  `ALTER TABLE counter_groups ADD COLUMN tap_links text;
   ALTER TABLE activity ADD COLUMN link_id text, ADD COLUMN link_label text;
   CREATE INDEX activity_by_link ON activity (group_id, link_id) WHERE link_id IS NOT NULL;`,
  // 11: imports (ADR 37): an imported entry's fingerprint (what recognises it when the file is
  // imported again, looked up by group) and its hash in the log it came from.
  `ALTER TABLE activity ADD COLUMN import_fingerprint text, ADD COLUMN import_hash text;
   CREATE INDEX activity_by_import ON activity (group_id, import_fingerprint)
     WHERE import_fingerprint IS NOT NULL;`,
  // 12: (ADR 36) a note on a change and the time a change was counted for, when entered
  // afterwards. Charts read a counter's few such entries through their own partial index: a
  // plain tap writes neither column nor index.
  `ALTER TABLE activity ADD COLUMN note text, ADD COLUMN counted_at timestamptz;
   CREATE INDEX activity_counted_earlier ON activity (group_id, counter_id)
     WHERE counted_at IS NOT NULL;`,
  // 13: the log's noted entries (a note or an earlier time), of a group and of a counter, newest
  // first for the history dialog and the By member detail. Partial: a plain tap writes no leaf.
  `CREATE INDEX activity_noted ON activity (group_id, id)
     WHERE note IS NOT NULL OR counted_at IS NOT NULL;
   CREATE INDEX activity_noted_by_counter ON activity (counter_id, id)
     WHERE note IS NOT NULL OR counted_at IS NOT NULL;`,
  // 14: (ADR 37) an import's entries staged out of sight until its commit publishes them
  // (store/postgres/import-staging.ts): no reader of the log reads this table. Undo links are
  // positions among the import's entries; staged_at finds what a crashed instance left.
  `CREATE TABLE import_staged (
     import_id text NOT NULL,
     position integer NOT NULL,
     staged_at timestamptz NOT NULL DEFAULT now(),
     undo_of integer,
     undone_by integer,
     group_id text NOT NULL,
     seq bigint NOT NULL,
     at timestamptz NOT NULL,
     actor text NOT NULL,
     kind text NOT NULL,
     counter_id text,
     counter_name text,
     value_after bigint,
     delta bigint,
     detail text,
     increments bigint,
     decrements bigint,
     hash text NOT NULL,
     link_id text,
     link_label text,
     import_fingerprint text,
     import_hash text,
     note text,
     counted_at timestamptz,
     PRIMARY KEY (import_id, position)
   );`,
];
