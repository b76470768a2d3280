/**
 * Opening a group screen is two loads (docs/api.md#endpoints): the group (POST …/join: the key is
 * checked, a group that does not exist yet is created), then its counters (GET …/counters). The
 * screen shows 'Loading group...' during the first and, with the group's header already up,
 * 'Loading counters...' during the second.
 *
 * Both start before the group screen needs them, so they run while its chunk downloads: from the
 * entry script for a visit straight to a group link (App.tsx), and from the landing page, whose
 * join (to check the key) is the group's first load.
 */
import type { Counter, GroupSnapshot } from '../../shared/api.js';
import { checkGroupName, isValidKeyFormat } from '../../shared/rules.js';
import { invalidKeyFormat, missingNameOrKey, problemText } from '../i18n/messages.js';
import { fetchCounters, joinGroup } from './api.js';

export type Opening =
  | { ok: false; message: string }
  | {
      ok: true;
      key: string;
      group: Promise<GroupSnapshot>;
      counters: Promise<Counter[]>;
      /** The group, once its load has answered: a screen can use it in the frame it opens. */
      answered: GroupSnapshot | null;
    };

/** An opening started ahead of its screen is used only this soon after it started, ms. */
const EARLY_MAX_AGE_MS = 10_000;

let early: { rawName: string; accessKey: string | null; opening: Opening; at: number } | null =
  null;

const ignore = () => undefined;

function loads(
  key: string,
  group: Promise<GroupSnapshot>,
  answered: GroupSnapshot | null = null,
): Opening {
  const counters = group.then((snapshot) => fetchCounters({ slug: snapshot.group.name, key }));
  // Whoever takes the opening handles its failures; until then they are not unhandled.
  counters.catch(ignore);
  const opening: Opening = { ok: true, key, group, counters, answered };
  group.then((snapshot) => {
    opening.answered = snapshot;
  }, ignore);
  return opening;
}

/**
 * Checks the name and key (with the reasons of docs/product.md#group-screen), then starts both
 * loads.
 */
function startOpening(rawName: string, accessKey: string | null): Opening {
  const key = accessKey?.trim() ?? '';
  if (rawName.trim() === '' || key === '') return { ok: false, message: missingNameOrKey() };
  if (!isValidKeyFormat(key)) return { ok: false, message: invalidKeyFormat() };
  const parsed = checkGroupName(rawName);
  if (!parsed.ok) return { ok: false, message: problemText(parsed.problem) };
  return loads(key, joinGroup(parsed.value, key));
}

/** The entry script's head start for the page's first URL (a group link). */
export function openEarly(rawName: string, accessKey: string | null): void {
  early = { rawName, accessKey, opening: startOpening(rawName, accessKey), at: Date.now() };
}

/** The landing page joined the group (to check the key) and is about to open its screen. */
export function handOver(key: string, snapshot: GroupSnapshot): void {
  const rawName = snapshot.group.name;
  early = {
    rawName,
    accessKey: key,
    opening: loads(key, Promise.resolve(snapshot), snapshot),
    at: Date.now(),
  };
}

/** The opening started early for this very URL, if it is still fresh. */
function earlyFor(rawName: string, accessKey: string | null): Opening | null {
  if (early?.rawName !== rawName || early.accessKey !== accessKey) return null;
  return Date.now() - early.at <= EARLY_MAX_AGE_MS ? early.opening : null;
}

/** The group screen's opening: the one started early for this very URL (once), else a new one. */
export function takeOpening(rawName: string, accessKey: string | null): Opening {
  const taken = earlyFor(rawName, accessKey);
  early = null;
  return taken ?? startOpening(rawName, accessKey);
}

/**
 * Whether the group of this URL is known already (the landing page joined it, or the early join
 * answered while the screen's code loaded): its screen then opens without 'Loading group...'.
 */
export function openingAnswered(rawName: string, accessKey: string | null): boolean {
  const opening = earlyFor(rawName, accessKey);
  return opening?.ok === true && opening.answered !== null;
}
