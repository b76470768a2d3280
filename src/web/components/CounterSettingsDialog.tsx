/**
 * A counter's goal, limits, reset period, start value and section, edited together in a dialog
 * opened from its card (the card keeps its size, like the thumbnail dialog). Blank number fields
 * mean none. Saved as one patch through the store, like every other counter edit.
 */
import { t } from '@lingui/core/macro';
import { useId, useState } from 'react';
import type { Counter } from '../../shared/api.js';
import { SECTION_NAME_MAX_LENGTH } from '../../shared/limits.js';
import {
  draftOf,
  isResetPeriod,
  sectionNames,
  settingsPatch,
  type SettingsDraft,
  type SettingsField,
} from '../lib/counter-settings.js';
import { errorText, textInput } from '../lib/ui.js';
import type { CounterPatch } from '../live/ops.js';
import { FormDialog, FormButtons } from './Dialog.js';

export function CounterSettingsDialog({
  counter,
  counters,
  onSave,
  onClose,
}: {
  counter: Counter;
  /** The group's counters: their section names are offered as suggestions. */
  counters: readonly Pick<Counter, 'section'>[];
  /** Called once with what changed (never with an empty patch). */
  onSave: (patch: CounterPatch) => void;
  onClose: () => void;
}) {
  const titleId = useId();
  const sectionListId = useId();
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(counter));
  const [sections] = useState(() => sectionNames(counters));
  const [errors, setErrors] = useState<Partial<Record<SettingsField, string>>>({});

  const set = (field: keyof SettingsDraft) => (text: string) => {
    setDraft((current) => ({ ...current, [field]: text }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const save = (close: () => void) => {
    const result = settingsPatch(draft, counter);
    if (!result.ok) {
      setErrors(result.errors);
      // The first field with a problem takes the focus, so its message is read out.
      const first = (['goal', 'min', 'max', 'startValue'] as const).find((f) => result.errors[f]);
      if (first) document.getElementById(`${titleId}-${first}`)?.focus();
      return;
    }
    if (Object.keys(result.patch).length > 0) onSave(result.patch);
    close();
  };

  const counterName = counter.name === '' ? t`This counter` : counter.name;
  // Blank is no number ('None'), except for the start value: a reset starts at 0.
  const numberField = (
    field: 'goal' | 'min' | 'max' | 'startValue',
    label: string,
    hint: string,
  ) => (
    <NumberField
      id={`${titleId}-${field}`}
      label={label}
      hint={hint}
      placeholder={field === 'startValue' ? '0' : t`None`}
      value={draft[field]}
      error={errors[field]}
      onInput={set(field)}
    />
  );

  return (
    <FormDialog titleId={titleId} title={t`Goal and limits`} onClose={onClose} onSubmit={save}>
      {(close) => (
        <>
          <p className="hint mt-1">{t`${counterName}: leave a number blank for none.`}</p>
          <div className="mt-4 grid grid-cols-2 gap-x-3 gap-y-4">
            <div className="col-span-2">
              {numberField('goal', t`Goal`, t`Progress shows toward it; reaching it is announced.`)}
            </div>
            {numberField('min', t`Minimum`, t`The value stays at or above it.`)}
            {numberField('max', t`Maximum`, t`Capacity: the card shows the room left.`)}
            <div>
              <label htmlFor={`${titleId}-reset`} className="block text-sm font-medium">
                {t`Reset`}
              </label>
              <select
                id={`${titleId}-reset`}
                value={draft.reset}
                onChange={(event) => {
                  const { value } = event.currentTarget;
                  set('reset')(isResetPeriod(value) ? value : '');
                }}
                aria-describedby={`${titleId}-reset-hint`}
                className={`mt-1.5 ${textInput}`}
              >
                <option value="">{t`None`}</option>
                <option value="daily">{t`Daily`}</option>
                <option value="weekly">{t`Weekly`}</option>
                <option value="monthly">{t`Monthly`}</option>
              </select>
              <p id={`${titleId}-reset-hint`} className="hint mt-1.5">
                {t`At midnight in the group's time zone.`}
              </p>
            </div>
            {numberField('startValue', t`Start value`, t`Where a reset starts.`)}
            <div className="col-span-2">
              <label htmlFor={`${titleId}-section`} className="block text-sm font-medium">
                {t`Section`}
              </label>
              <input
                id={`${titleId}-section`}
                type="text"
                value={draft.section}
                list={sections.length > 0 ? sectionListId : undefined}
                maxLength={SECTION_NAME_MAX_LENGTH}
                placeholder={t`None`}
                autoComplete="off"
                onInput={(event) => {
                  set('section')(event.currentTarget.value);
                }}
                aria-describedby={`${titleId}-section-hint`}
                className={`mt-1.5 ${textInput}`}
              />
              {sections.length > 0 && (
                <datalist id={sectionListId}>
                  {sections.map((name) => (
                    <option key={name} value={name} />
                  ))}
                </datalist>
              )}
              <p id={`${titleId}-section-hint`} className="hint mt-1.5">
                {t`Counters of a section show together, with their total.`}
              </p>
            </div>
          </div>
          <FormButtons onCancel={close} />
        </>
      )}
    </FormDialog>
  );
}

function NumberField({
  id,
  label,
  hint,
  placeholder,
  value,
  error,
  onInput,
}: {
  id: string;
  label: string;
  hint: string;
  placeholder: string;
  value: string;
  error: string | undefined;
  onInput: (text: string) => void;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {/* Text, not type=number: the browser would hide what was typed when it is not a number. */}
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        value={value}
        placeholder={placeholder}
        onInput={(event) => {
          onInput(event.currentTarget.value);
        }}
        aria-invalid={error !== undefined}
        aria-describedby={error === undefined ? `${id}-hint` : `${id}-error ${id}-hint`}
        className={`mt-1.5 ${textInput}`}
      />
      {error !== undefined && (
        <p id={`${id}-error`} role="alert" className={`mt-1.5 ${errorText}`}>
          {error}
        </p>
      )}
      <p id={`${id}-hint`} className="hint mt-1.5">
        {hint}
      </p>
    </div>
  );
}
