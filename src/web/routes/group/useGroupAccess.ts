/**
 * Opening a group for a screen (the group screen and the display): the opening's two loads
 * (lib/opening.ts), then a started GroupStore, access denied with its reason, or offline. Offline
 * (no answer at all: the network, not the key) tries again with a growing delay, and at once when
 * the browser says it is online; the store is disposed when the screen goes.
 */
import { t } from '@lingui/core/macro';
import { useEffect, useLayoutEffect, useState } from 'react';
import type { GroupSnapshot } from '../../../shared/api.js';
import { accessDenied, invalidKeyFormat, missingNameOrKey } from '../../i18n/messages.js';
import { ApiRequestError } from '../../lib/api.js';
import { openingAnswered, takeOpening } from '../../lib/opening.js';
import type { PresenceMember } from '../../../shared/protocol.js';
import { GroupStore } from '../../live/groupStore.js';

export type GroupAccess =
  /** `answered`: the group is known and the store starts before this frame is painted. */
  | { phase: 'loading'; answered?: boolean }
  | { phase: 'offline' }
  | { phase: 'denied'; message: string }
  | { phase: 'granted'; store: GroupStore };

/** Opening again while offline: first delay and cap, ms (doubling), and at once when online. */
export const REOPEN_BASE_MS = 1_000;
export const REOPEN_MAX_MS = 15_000;

/** The delay before try number `attempt` (0 first) opens again while offline, ms. */
export function reopenDelay(attempt: number): number {
  return Math.min(REOPEN_MAX_MS, REOPEN_BASE_MS * 2 ** attempt);
}

/** How a screen joins the group; both are read once per opening. */
export interface JoinOptions {
  /**
   * Who this tab is in 'Here now', or null to join the live channel without a member entry (the
   * display).
   */
  member: () => PresenceMember | null;
  /**
   * Runs with the snapshot once the store is up (the group screen puts the canonical address in
   * the location bar).
   */
  onGranted?: (snapshot: GroupSnapshot, key: string) => void;
}

/** The group `rawName` opened with `accessKey`, for a screen that joins it as the options say. */
export function useGroupAccess(
  rawName: string,
  accessKey: string | null,
  { member, onGranted }: JoinOptions,
): GroupAccess {
  const [access, setAccess] = useState<GroupAccess>(() => ({
    phase: 'loading',
    answered: openingAnswered(rawName, accessKey),
  }));
  // Bumped to open again after the network failed (a reload while offline).
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (access.phase !== 'offline') return;
    const retry = () => {
      setAttempt((n) => n + 1);
    };
    const timer = setTimeout(retry, reopenDelay(attempt));
    window.addEventListener('online', retry);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('online', retry);
    };
  }, [access.phase, attempt]);

  // Before paint: a group already known opens in the screen's first frame.
  useLayoutEffect(() => {
    let store: GroupStore | null = null;
    let cancelled = false;
    const opening = takeOpening(rawName, accessKey);
    if (!opening.ok) {
      setAccess({ phase: 'denied', message: opening.message });
      return;
    }
    const grant = (snapshot: GroupSnapshot) => {
      if (cancelled) return;
      store = new GroupStore({
        snapshot,
        key: opening.key,
        counterList: opening.counters,
        member: member(),
      });
      store.start();
      onGranted?.(snapshot, opening.key);
      setAccess({ phase: 'granted', store });
    };
    if (opening.answered !== null) {
      grant(opening.answered);
    } else {
      // While offline, the offline screen stays up during each new try.
      setAccess((current) => (current.phase === 'offline' ? current : { phase: 'loading' }));
      opening.group.then(grant, (error: unknown) => {
        if (cancelled) return;
        // No answer at all: the network is down, not the key wrong. Try again, keep what waits.
        if (error instanceof ApiRequestError && error.status === 0) setAccess({ phase: 'offline' });
        else setAccess({ phase: 'denied', message: accessError(error) });
      });
    }
    return () => {
      cancelled = true;
      store?.dispose();
    };
    // `member` and `onGranted` are read once per opening: new options each render must not open
    // the group again.
  }, [rawName, accessKey, attempt]);

  return access;
}

/**
 * Why access was denied, in the words of docs/product.md#group-screen: the group screen's messages,
 * else the server's message, else 'Access denied'.
 */
export function accessError(error: unknown): string {
  if (error instanceof ApiRequestError) {
    switch (error.code) {
      case 'missing_key':
        return missingNameOrKey();
      case 'invalid_key_format':
        return invalidKeyFormat();
      case 'wrong_key':
        // A revoked tap link's key is a wrong key that the server explains (LINK_MESSAGES.revoked).
        return error.serverMessage || t`Invalid access key for this group`;
      case 'network_error':
        return error.message || accessDenied();
      default:
        return error.serverMessage || accessDenied();
    }
  }
  return error instanceof Error && error.message ? error.message : accessDenied();
}
