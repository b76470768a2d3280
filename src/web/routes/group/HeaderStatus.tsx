/** The group header's second line: who this is, the connection, and who else is here. */
import { formatNumber } from '../../i18n/format.js';
import { useLingui } from '@lingui/react/macro';
import { useEffect, useState } from 'react';
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
      <span role="status" className="offline-badge">
        <WifiOff className="size-3.5" />
        {t`Offline · reconnecting…`}
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

/** How many people 'Here now' shows before '+N'. */
const HERE_NOW_MAX = 4;

/**
 * Presence: who has the group open now, as initials (names in the tooltip and for screen readers).
 * In a crowd the server lists only the first members by name (`count` says how many there are):
 * the line then reads 'N here' after the first initials, and the tooltip names those listed.
 */
export function HereNow({
  members,
  count = members.length,
}: {
  members: readonly PresenceMember[];
  count?: number;
}) {
  const { t } = useLingui();
  const total = Math.max(count, members.length);
  // Until presence arrives (this member is always in it once live), its room is kept empty, so
  // the header's line does not wrap, and the counters jump, when it comes.
  if (total === 0) return <HereNowRoom />;
  const crowd = total > members.length;
  const shown = members.slice(0, HERE_NOW_MAX);
  const more = total - shown.length;
  const named = members.map((m) => m.name || t`Someone`).join(', ');
  const people = formatNumber(total);
  const others = formatNumber(total - members.length);
  const names = crowd ? t`${people} people: ${named} and ${others} more` : named;
  const label = t`Here now: ${names}`;
  return (
    <div
      role="group"
      aria-label={label}
      title={label}
      data-testid="here-now"
      className="flex items-center gap-1.5"
    >
      {!crowd && <span className={`text-xs font-medium ${mutedText}`}>{t`Here now`}</span>}
      <ul className="flex -space-x-1.5">
        {shown.map((m) => (
          <li
            key={m.id}
            title={m.name}
            data-member={m.name}
            className="flex size-6 items-center justify-center rounded-full bg-indigo-600 text-[10px] font-semibold text-white ring-2 ring-white dark:ring-zinc-950"
          >
            <span aria-hidden="true">{initials(m.name)}</span>
            <span className="sr-only">{m.name}</span>
          </li>
        ))}
        {more > 0 && !crowd && (
          <li
            title={members
              .slice(HERE_NOW_MAX)
              .map((m) => m.name)
              .join(', ')}
            className="flex size-6 items-center justify-center rounded-full bg-zinc-300 text-[10px] font-semibold text-zinc-800 ring-2 ring-white dark:bg-zinc-700 dark:text-zinc-100 dark:ring-zinc-950"
          >
            +{more}
          </li>
        )}
      </ul>
      {crowd && (
        <span
          data-testid="here-count"
          className={`text-xs font-medium whitespace-nowrap ${mutedText}`}
        >
          {t`${people} here`}
        </span>
      )}
    </div>
  );
}

/** The room of 'Here now' with one member, empty and hidden from the accessibility tree. */
function HereNowRoom() {
  const { t } = useLingui();
  return (
    <span aria-hidden="true" className="invisible flex items-center gap-1.5">
      <span className="word-room text-xs font-medium" data-room={t`Here now`} />
      <span className="size-6" />
    </span>
  );
}

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = words[0] ?? '';
  const last = words.length > 1 ? (words[words.length - 1] ?? '') : '';
  return (first.charAt(0) + last.charAt(0)).toUpperCase() || '?';
}
