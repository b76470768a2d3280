/**
 * The list a tap or click on the header's 'Here now' row opens (HeaderStatus.tsx): everyone
 * present by name, this browser's marked, what the list means, and how it closes (a second tap,
 * a press or focus elsewhere, Escape). A chunk of its own, loaded before it is first opened.
 */
import { useLingui } from '@lingui/react/macro';
import { useEffect, useState, type RefObject } from 'react';
import type { PresenceMember } from '../../../shared/protocol.js';
import { ensureMemberId } from '../../lib/storage.js';
import { initials } from './HeaderStatus.js';

export function HereNowPanel({
  id,
  members,
  people,
  others,
  button,
  onClose,
}: {
  id: string;
  members: readonly PresenceMember[];
  /** How many are here, written as the language writes numbers. */
  people: string;
  /** In a crowd, how many the server does not list by name (written so); otherwise null. */
  others: string | null;
  /** The row's button: focus goes back to it, and a press on it is its own (it toggles). */
  button: RefObject<HTMLButtonElement | null>;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const [me] = useState(ensureMemberId);
  useEffect(() => {
    // A press, or focus (Tab), anywhere else: it would otherwise cover the buttons below it.
    const closeOutside = (event: Event) => {
      const row = button.current?.closest('.presence-row');
      if (event.target instanceof Node && row?.contains(event.target)) return;
      onClose();
    };
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      onClose();
      button.current?.focus();
    };
    document.addEventListener('pointerdown', closeOutside);
    document.addEventListener('focusin', closeOutside);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('pointerdown', closeOutside);
      document.removeEventListener('focusin', closeOutside);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [button, onClose]);
  return (
    <div id={id} className="here-now-panel">
      <p className="font-semibold">
        {t`Here now`} <span className="muted tabular-nums">· {people}</span>
      </p>
      <p className="hint mt-0.5">{t`Everyone with this group open right now, one entry per browser.`}</p>
      <ul aria-label={t`Here now`} className="here-list">
        {members.map((m) => (
          <li key={m.id} className="here-list-item">
            <span aria-hidden="true" className="here-face">
              {initials(m.name)}
            </span>
            {/* In its own direction: a Latin name cut short in Arabic keeps its start. */}
            <span dir="auto" className="truncate">
              {m.name || t`Someone`}
            </span>
            {m.id === me && <span className="muted shrink-0">{t`(you)`}</span>}
          </li>
        ))}
        {others !== null && <li className="muted ps-8">{t`and ${others} more`}</li>}
      </ul>
    </div>
  );
}
