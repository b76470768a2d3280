/** The group header's second line: who this is, the connection, and who else is here. */
import { formatNumber } from '../../i18n/format.js';
import { useLingui } from '@lingui/react/macro';
import { lazy, Suspense, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { PresenceMember } from '../../../shared/protocol.js';
import { WifiOff } from '../../components/icons/index.js';
import { InlineEdit } from '../../components/InlineEdit.js';
import { ensureGuestName, GUEST_NAME_KEY, saveGuestName } from '../../lib/storage.js';
import { mutedText } from '../../lib/ui.js';
import type { LiveStatus } from '../../live/connection.js';
import type { GroupStore } from '../../live/groupStore.js';

/** 'Signed in as {name}', edited inline; a blank or unchanged name is not saved. */
export function GuestName({ store }: { store: GroupStore }) {
  const { t } = useLingui();
  const [name, setName] = useState(ensureGuestName);
  // Renamed in another tab of this browser: this tab, and its entry in 'Here now', follow.
  useEffect(() => {
    const follow = (event: StorageEvent) => {
      const next = event.key === GUEST_NAME_KEY ? event.newValue?.trim() : undefined;
      if (!next) return;
      setName(next);
      store.renameMember(next);
    };
    window.addEventListener('storage', follow);
    return () => {
      window.removeEventListener('storage', follow);
    };
  }, [store]);
  return (
    <p className={`guest-name ${mutedText}`}>
      <span className="shrink-0">{t`Signed in as`}</span>
      <InlineEdit
        value={name}
        label={t`Your name`}
        placeholder={t`Your name`}
        maxLength={100}
        onCommit={(text) => {
          const next = text.trim();
          if (next === '' || next === name) return;
          saveGuestName(next);
          setName(next);
          store.renameMember(next);
        }}
        className="font-medium text-zinc-900 dark:text-zinc-100"
      />
    </p>
  );
}

export function ConnectionBadge({ status }: { status: LiveStatus }) {
  const { t } = useLingui();
  if (status === 'offline') {
    return (
      <span role="status" className="offline-badge min-w-0">
        <WifiOff className="size-3.5 shrink-0" />
        <span className="truncate">{t`Offline · reconnecting…`}</span>
      </span>
    );
  }
  const live = status === 'live';
  const connecting = t`Connecting…`;
  const liveWord = t`Live`;
  return (
    <span
      role="status"
      className={`inline-flex items-center gap-1.5 text-xs font-medium ${mutedText}`}
    >
      <span
        aria-hidden="true"
        className={`size-2 rounded-full ${live ? 'bg-emerald-500' : 'animate-pulse bg-zinc-400'}`}
      />
      {/* Each word holds the other's room: turning live on every visit moves nothing below. */}
      <span className="word-room" data-room={live ? connecting : liveWord}>
        <span>{live ? liveWord : connecting}</span>
      </span>
    </span>
  );
}

// The list a tap on 'Here now' opens is a chunk of its own (the group screen's first load has no
// room to spare): fetched when the screen is idle, as a pointer or focus reaches the row, or on
// the first tap.
export const loadHereNowPanel = () => {
  void import('./HereNowPanel.js');
};
const HereNowPanel = lazy(() =>
  import('./HereNowPanel.js').then((m) => ({ default: m.HereNowPanel })),
);

/** How many people 'Here now' shows at most before '+N' (fewer when the row has less room). */
const HERE_NOW_MAX = 4;
/**
 * A face's diameter and the step from one face to the next, rem (.here-face, .here-faces): they
 * overlap by no more than the ring around each, which leaves two initials whole.
 */
const FACE_REM = 1.5;
const FACE_STEP_REM = 1.375;

/**
 * How many of `wanted` faces fit in `widthPx`, with the '+N' face after them when `more(n)`
 * says that n faces leave some out. At least one: the list is never narrower than one face and
 * '+N' (.here-faces), the word before it gives way first.
 */
function facesThatFit(widthPx: number, wanted: number, more: (shown: number) => boolean): number {
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  for (let shown = wanted; shown > 1; shown--) {
    const faces = shown + (more(shown) ? 1 : 0);
    if ((FACE_REM + (faces - 1) * FACE_STEP_REM) * rem <= widthPx) return shown;
  }
  return Math.min(wanted, 1);
}

/**
 * Presence: who has the group open now, as a one-row summary (initials, names for screen
 * readers) that opens the full list, with what it means, on a tap or click (a tooltip too).
 * In a crowd the server lists only the first members by name (`count` says how many there are):
 * the row then reads 'N here' before the first initials, and the list names those listed.
 *
 * Rendered in the header's .presence-row, whose width does not depend on who is here: the row
 * keeps its height and place whatever arrives, and as many faces show as its width holds.
 */
export function HereNow({
  members,
  count = members.length,
}: {
  members: readonly PresenceMember[];
  count?: number;
}) {
  const { t } = useLingui();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const facesRef = useRef<HTMLUListElement>(null);
  // The faces' room, px (null until measured): the list fills what the row leaves it.
  const [room, setRoom] = useState<number | null>(null);
  const total = Math.max(count, members.length);
  const present = total > 0;
  useLayoutEffect(() => {
    const faces = facesRef.current;
    if (!faces) return;
    const measure = () => {
      setRoom(faces.clientWidth);
    };
    // Measured before the first paint with faces, so the right number of them is painted first.
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(faces);
    return () => {
      observer.disconnect();
    };
  }, [present]);
  // Until presence arrives (this member is always in it once live) the row's room stays empty.
  if (!present) return <span aria-hidden="true" className="here-now-box" />;
  const crowd = total > members.length;
  const wanted = Math.min(HERE_NOW_MAX, members.length);
  const fits =
    room === null ? wanted : facesThatFit(room, wanted, (shown) => !crowd && total > shown);
  const shown = members.slice(0, fits);
  const more = total - shown.length;
  const named = members.map((m) => m.name || t`Someone`).join(', ');
  const people = formatNumber(total);
  const others = formatNumber(total - members.length);
  const names = crowd ? t`${people} people: ${named} and ${others} more` : named;
  const label = t`Here now: ${names}`;
  return (
    <>
      <div className="here-now-box">
        <div
          role="group"
          aria-label={label}
          title={label}
          data-testid="here-now"
          className="here-now"
        >
          {crowd ? (
            <span data-testid="here-count" className="here-now-word">
              {t`${people} here`}
            </span>
          ) : (
            <span className="here-now-word">{t`Here now`}</span>
          )}
          <ul ref={facesRef} className="here-faces">
            {shown.map((m) => (
              <li key={m.id} data-member={m.name} className="here-face">
                <span aria-hidden="true">{initials(m.name)}</span>
                <span className="sr-only">{m.name}</span>
              </li>
            ))}
            {more > 0 && !crowd && (
              <li className="here-face here-face-more">+{formatNumber(more)}</li>
            )}
          </ul>
        </div>
        {/* Over the whole summary, so a tap anywhere on it opens the list (and the pointer resting
            on it shows the names). */}
        <button
          ref={buttonRef}
          type="button"
          aria-label={t`Here now`}
          title={label}
          aria-expanded={open}
          aria-controls={open ? panelId : undefined}
          onPointerEnter={loadHereNowPanel}
          onFocus={loadHereNowPanel}
          onClick={() => {
            setOpen(!open);
          }}
          className="here-now-button"
        />
      </div>
      {open && (
        <Suspense fallback={null}>
          <HereNowPanel
            id={panelId}
            members={members}
            people={people}
            others={crowd ? others : null}
            button={buttonRef}
            onClose={() => {
              setOpen(false);
            }}
          />
        </Suspense>
      )}
    </>
  );
}

export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = words[0] ?? '';
  const last = words.length > 1 ? (words[words.length - 1] ?? '') : '';
  return (first.charAt(0) + last.charAt(0)).toUpperCase() || '?';
}
