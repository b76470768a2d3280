#!/usr/bin/env node
/* global console, process */
/**
 * Checks a Tally JSON export's activity log offline (ADR 30): every entry's hash must follow
 * from the one before (from the export's `chain.anchor`), and the server's head when the export
 * began must be one of them. An entry edited, removed, inserted or moved in the file breaks it.
 *
 *   node scripts/verify-export.mjs game-night-export.json     (or: npx tally-verify …)
 *
 * Exit status: 0 the log holds, 1 it does not, 2 the file is not a Tally JSON export. It needs
 * nothing but Node: the rule is written out here as the server's domain/log-chain.ts writes it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** JSON with object keys sorted and undefined members left out (domain/canonical-json.ts). */
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What an entry's hash is made from: the group's id, the entry without id, links, hash and note
 * (a note may be changed by its member afterwards, ADR 36).
 */
function chainedText(groupId, entry) {
  const {
    id: _id,
    undoOf: _undoOf,
    undoneBy: _undoneBy,
    hash: _hash,
    note: _note,
    ...said
  } = entry;
  return `${JSON.stringify(groupId)}\n${canonicalJson(said)}`;
}

const chainHash = (previous, groupId, entry) =>
  createHash('sha256')
    .update(`${previous}\n${chainedText(groupId, entry)}`)
    .digest('hex');

function fail(status, message) {
  console.error(message);
  process.exit(status);
}

const file = process.argv[2];
if (file === undefined) fail(2, 'Usage: node scripts/verify-export.mjs <group>-export.json');
let data;
try {
  data = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  fail(2, `${file} is not a JSON file: ${error instanceof Error ? error.message : String(error)}`);
}
const { group, activity, chain } = data ?? {};
if (
  typeof group?.id !== 'string' ||
  !Array.isArray(activity) ||
  typeof chain !== 'object' ||
  chain === null
) {
  fail(2, `${file} is not a Tally JSON export with a chained log (group, activity, chain)`);
}

let previous = chain.anchor ?? '';
let chained = false;
let checked = 0;
let headSeen = chain.head === null || (chain.head === chain.anchor && activity.length === 0);
for (const entry of activity) {
  // Entries written before the server chained its log come first, without a hash.
  if (entry.hash === null && !chained) continue;
  chained = true;
  const expected = chainHash(previous, group.id, entry);
  if (entry.hash !== expected) {
    fail(
      1,
      `Broken: entry ${String(entry.id)} is not the entry the server wrote after the one before it (${String(checked)} entries hold before it).`,
    );
  }
  previous = expected;
  checked += 1;
  if (expected === chain.head) headSeen = true;
}
if (!headSeen && !(chain.head === chain.anchor && !chained)) {
  fail(
    1,
    `Broken: the newest entries are missing (${String(checked)} entries hold, but none is the log's newest when the export was made).`,
  );
}
console.log(
  `OK: the activity log of ${String(group.name)} holds (${String(checked)} entries checked).`,
);
