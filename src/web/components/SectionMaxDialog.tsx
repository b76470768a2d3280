/**
 * Sets or removes a section's maximum (docs/product.md#sections): the counters of the section
 * together cannot go above it. Loaded when a member first opens it (a section header's "Set max").
 */
import { useLingui } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { MAX_VALUE } from '../../shared/limits.js';
import { formatNumber } from '../i18n/format.js';
import { notAnInteger } from '../i18n/messages.js';
import { errorText, textInput } from '../lib/ui.js';
import { FormDialog, FormButtons } from './Dialog.js';

/** A whole number from 0 up, or null when the text is not one. */
export function parseSectionMax(text: string): number | null {
  const trimmed = text.trim().replace(/[,\s_]/g, '');
  if (!/^\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) && value <= MAX_VALUE ? value : null;
}

export function SectionMaxDialog({
  section,
  max,
  total,
  onSave,
  onClose,
}: {
  section: string;
  /** The maximum now, or null. */
  max: number | null;
  /** The section's total now: a maximum below it is refused by the server, and here first. */
  total: number;
  /** The new maximum, or null to remove it. Called only when it changed. */
  onSave: (max: number | null) => void;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const [draft, setDraft] = useState(max === null ? '' : String(max));
  const [error, setError] = useState<string | null>(null);

  const save = (close: () => void) => {
    const parsed = draft.trim() === '' ? null : parseSectionMax(draft);
    if (draft.trim() !== '' && parsed === null) {
      setError(notAnInteger());
      return;
    }
    if (parsed !== null && parsed < total) {
      const current = formatNumber(total);
      setError(t`The maximum of ${section} cannot be less than its current total of ${current}.`);
      return;
    }
    if (parsed !== max) onSave(parsed);
    close();
  };

  return (
    <FormDialog
      titleId={titleId}
      title={t`Maximum of ${section}`}
      describedBy={hintId}
      onClose={onClose}
      onSubmit={save}
    >
      {(close) => (
        <>
          <p id={hintId} className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">
            {t`The counters of this section together cannot go above it. Leave it empty for no maximum.`}
          </p>
          <label htmlFor={inputId} className="mt-5 block text-sm font-medium">
            {t`Maximum`}
          </label>
          <input
            id={inputId}
            type="text"
            inputMode="numeric"
            autoFocus
            autoComplete="off"
            value={draft}
            onChange={(event) => {
              setDraft(event.target.value);
              setError(null);
            }}
            aria-invalid={error !== null}
            aria-describedby={error ? errorId : undefined}
            className={`mt-1.5 ${textInput} tabular-nums`}
          />
          {error && (
            <p id={errorId} role="alert" className={`mt-2 ${errorText}`}>
              {error}
            </p>
          )}
          <FormButtons
            onCancel={close}
            remove={
              max !== null
                ? {
                    label: t`Remove maximum`,
                    onRemove: () => {
                      onSave(null);
                      close();
                    },
                  }
                : undefined
            }
          />
        </>
      )}
    </FormDialog>
  );
}
