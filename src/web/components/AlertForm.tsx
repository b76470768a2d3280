/**
 * The alerts dialog's form for a new rule: which counters (every one, one, or a section's), when
 * (the six kinds, with a number where one is needed) and where its alerts go (a webhook and its
 * format, or members' devices by Web Push). Only what is plainly missing is refused here; the
 * server judges the rest and its message is shown as it comes.
 */
import { useLingui } from '@lingui/react/macro';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { AlertCreated } from '../../shared/alerts.js';
import type { Counter } from '../../shared/api.js';
import {
  createAlert,
  formatChoices,
  formatOfUrl,
  needsNumber,
  problemWords,
  ruleOfDraft,
  whenChoices,
  type AlertDraft,
  type DraftField,
  type WhenChoice,
} from '../lib/alerts.js';
import type { GroupAuth } from '../lib/api.js';
import { sectionNames } from '../lib/counter-settings.js';
import { errorText, primaryButton, secondaryButton, textInput } from '../lib/ui.js';
import { Loader } from './icons/index.js';

const EMPTY_DRAFT: AlertDraft = {
  scope: 'all',
  when: 'reaches',
  value: '',
  to: 'webhook',
  url: '',
  format: 'standard',
};

/** A new rule: which counters, when, and where its alerts go. */
export function AddAlertForm({
  auth,
  counters,
  onAdded,
  onCancel,
}: {
  auth: GroupAuth;
  counters: readonly Counter[];
  onAdded: (created: AlertCreated) => void;
  onCancel: () => void;
}) {
  const { t } = useLingui();
  const id = useId();
  const [draft, setDraft] = useState<AlertDraft>(EMPTY_DRAFT);
  // A format picked by the member is kept; until then the URL's host may suggest one.
  const [formatChosen, setFormatChosen] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<DraftField, string>>>({});
  const [busy, setBusy] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const [sections] = useState(() => sectionNames(counters));
  const firstField = useRef<HTMLSelectElement>(null);

  useEffect(() => {
    firstField.current?.focus();
  }, []);

  const update = (patch: Partial<AlertDraft>) => {
    setDraft((current) => ({ ...current, ...patch }));
    // A field's error goes once it is edited; the other's stays.
    setErrors((current) => ({
      ...('value' in patch ? {} : { value: current.value }),
      ...('url' in patch ? {} : { url: current.url }),
    }));
  };

  const submit = () => {
    const result = ruleOfDraft(draft);
    if (!result.ok) {
      setErrors(result.errors);
      const first = (['value', 'url'] as const).find((field) => result.errors[field]);
      if (first) document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    setBusy(true);
    setServerError(null);
    createAlert(auth, result.rule).then(onAdded, (reason: unknown) => {
      setBusy(false);
      setServerError(problemWords(reason));
    });
  };

  const whens = whenChoices();
  const formats = formatChoices();
  const whenChoice = whens.find((choice) => choice.value === draft.when);
  const formatChoice = formats.find((choice) => choice.value === draft.format);
  const counterLabel = (counter: Counter) =>
    counter.name === '' ? t`Unnamed counter` : counter.name;

  return (
    <form
      noValidate
      aria-labelledby={`${id}-title`}
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      className="mt-5 rounded-2xl border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h3 id={`${id}-title`} className="font-semibold">
        {t`Add alert`}
      </h3>
      <div className="mt-3 grid gap-4 sm:grid-cols-2">
        <div className="min-w-0">
          <label htmlFor={`${id}-scope`} className="block text-sm font-medium">
            {t`Counters`}
          </label>
          <select
            ref={firstField}
            id={`${id}-scope`}
            value={draft.scope}
            onChange={(event) => {
              update({ scope: event.currentTarget.value });
            }}
            className={`mt-1.5 ${textInput}`}
          >
            <option value="all">{t`Every counter`}</option>
            {counters.length > 0 && (
              <optgroup label={t`A counter`}>
                {counters.map((counter) => (
                  <option key={counter.id} value={`counter:${counter.id}`}>
                    {counterLabel(counter)}
                  </option>
                ))}
              </optgroup>
            )}
            {sections.length > 0 && (
              <optgroup label={t`A section`}>
                {sections.map((name) => (
                  <option key={name} value={`section:${name}`}>
                    {t`Section: ${name}`}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </div>
        <div className="min-w-0">
          <label htmlFor={`${id}-when`} className="block text-sm font-medium">
            {t`When it`}
          </label>
          <select
            id={`${id}-when`}
            value={draft.when}
            onChange={(event) => {
              update({ when: event.currentTarget.value as WhenChoice });
            }}
            aria-describedby={`${id}-when-hint`}
            className={`mt-1.5 ${textInput}`}
          >
            {whens.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
          <p id={`${id}-when-hint`} className="hint mt-1.5">
            {whenChoice?.hint}
          </p>
        </div>
        {needsNumber(draft.when) && (
          <Field
            id={`${id}-value`}
            label={draft.when === 'every' ? t`Every` : t`Number`}
            error={errors.value}
          >
            {(describedBy) => (
              <input
                id={`${id}-value`}
                type="text"
                inputMode="numeric"
                autoComplete="off"
                value={draft.value}
                placeholder={draft.when === 'every' ? '100' : '200'}
                onInput={(event) => {
                  update({ value: event.currentTarget.value });
                }}
                aria-invalid={errors.value !== undefined}
                aria-describedby={describedBy}
                className={`mt-1.5 ${textInput}`}
              />
            )}
          </Field>
        )}
      </div>

      <fieldset className="mt-4 min-w-0">
        <legend className="text-sm font-medium">{t`Send to`}</legend>
        <div className="mt-1.5 flex flex-col gap-2">
          <label className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name={`${id}-to`}
              value="webhook"
              checked={draft.to === 'webhook'}
              onChange={() => {
                update({ to: 'webhook' });
              }}
              className="mt-0.5 size-4 shrink-0 accent-indigo-600"
            />
            <span>{t`A webhook: Slack, Discord, ntfy or your own address`}</span>
          </label>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name={`${id}-to`}
              value="push"
              checked={draft.to === 'push'}
              onChange={() => {
                update({ to: 'push' });
              }}
              className="mt-0.5 size-4 shrink-0 accent-indigo-600"
            />
            <span>{t`This browser & other members who turn on notifications`}</span>
          </label>
        </div>
      </fieldset>

      {draft.to === 'webhook' ? (
        <div className="mt-4 grid gap-4 sm:grid-cols-[1fr_auto]">
          <Field id={`${id}-url`} label={t`Webhook URL`} error={errors.url}>
            {(describedBy) => (
              <input
                id={`${id}-url`}
                type="url"
                inputMode="url"
                autoComplete="off"
                spellCheck={false}
                value={draft.url}
                placeholder="https://hooks.slack.com/services/…"
                onInput={(event) => {
                  const url = event.currentTarget.value;
                  const suggested = formatChosen ? null : formatOfUrl(url);
                  update(suggested === null ? { url } : { url, format: suggested });
                }}
                aria-invalid={errors.url !== undefined}
                aria-describedby={describedBy}
                className={`mt-1.5 ${textInput}`}
              />
            )}
          </Field>
          <div className="min-w-0">
            <label htmlFor={`${id}-format`} className="block text-sm font-medium">
              {t`Format`}
            </label>
            <select
              id={`${id}-format`}
              value={draft.format}
              onChange={(event) => {
                setFormatChosen(true);
                update({ format: event.currentTarget.value as AlertDraft['format'] });
              }}
              aria-describedby={`${id}-format-hint`}
              className={`mt-1.5 ${textInput}`}
            >
              {formats.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </div>
          <p id={`${id}-format-hint`} className="hint -mt-2 sm:col-span-2">
            {formatChoice?.hint}
          </p>
        </div>
      ) : (
        <p className="hint mt-3">
          {t`Each member turns notifications on for their own device with the switch below.`}
        </p>
      )}

      {serverError !== null && (
        <p role="alert" className="alert-error mt-4 px-3 py-2 break-words">
          {serverError}
        </p>
      )}
      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <button type="button" onClick={onCancel} className={secondaryButton}>
          {t`Cancel`}
        </button>
        <button type="submit" disabled={busy} className={primaryButton}>
          {busy && <Loader className="size-4 animate-spin" />}
          {busy ? t`Adding…` : t`Add alert`}
        </button>
      </div>
    </form>
  );
}

/** A labelled field with its error under it (read out with the field). */
function Field({
  id,
  label,
  error,
  children,
}: {
  id: string;
  label: string;
  error: string | undefined;
  children: (describedBy: string | undefined) => ReactNode;
}) {
  return (
    <div className="min-w-0">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {children(error === undefined ? undefined : `${id}-error`)}
      {error !== undefined && (
        <p id={`${id}-error`} role="alert" className={`mt-1.5 ${errorText}`}>
          {error}
        </p>
      )}
    </div>
  );
}
