/**
 * Import (docs/product.md#import): a file chosen or dropped is sent for a preview at once
 * (`dryRun=true`: nothing changes), which says what the import would create, change and add and
 * what it leaves out; "Import" then applies it, all or nothing. New counters arrive on every
 * member's screen through the live channel like any change. Loaded from Group settings only
 * when a member asks for it, so the group screen's first load does not carry it.
 */
import { useLingui } from '@lingui/react/macro';
import { useId, useState, type DragEvent } from 'react';
import type { ApiError } from '../../shared/api.js';
import type { ImportFormat, ImportSummary } from '../../shared/import.js';
import { formatNumber } from '../i18n/format.js';
import { groupPath, member, type GroupAuth } from '../lib/api.js';
import { errorText, primaryButton, secondaryButton } from '../lib/ui.js';
import { Dialog } from './Dialog.js';
import { Loader } from './icons/index.js';

/** The most a file may weigh, bytes (the server's bound, shared/import.ts IMPORT_MAX_BYTES). */
const MAX_BYTES = 5 * 1024 * 1024;

/** The apps' own names, the same in every language. */
const FORMAT_NAMES: Record<ImportFormat, string> = {
  tally: 'Tally',
  // eslint-disable-next-line lingui/no-unlocalized-strings -- an app's name, never translated
  bettercounter: 'BetterCounter',
  // eslint-disable-next-line lingui/no-unlocalized-strings -- an app's name, never translated
  simplecounter: 'Simple Counter',
};

type Step =
  | { kind: 'choose' }
  | { kind: 'reading'; fileName: string }
  | { kind: 'preview'; fileName: string; text: string; type: string; summary: ImportSummary }
  | { kind: 'importing'; fileName: string; summary: ImportSummary }
  | { kind: 'done'; summary: ImportSummary };

/** Sends the file; the summary, or the server's error as a thrown Error with its message. */
async function sendFile(
  { slug, key }: GroupAuth,
  { text, type, dryRun }: { text: string; type: string; dryRun: boolean },
): Promise<ImportSummary> {
  const response = await fetch(`${groupPath(slug)}/import?dryRun=${String(dryRun)}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': type,
      'tally-member': encodeURIComponent(member.name()),
    },
    body: text,
    cache: 'no-store',
  });
  const body = (await response.json().catch(() => undefined)) as
    ImportSummary | ApiError | undefined;
  if (response.ok && body !== undefined && !('error' in body)) return body;
  throw new Error(body !== undefined && 'error' in body ? body.error.message : response.statusText);
}

export function ImportDialog({ auth, onClose }: { auth: GroupAuth; onClose: () => void }) {
  const { t } = useLingui();
  const titleId = useId();
  const inputId = useId();
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);

  const failed = (reason: unknown) => {
    setStep({ kind: 'choose' });
    setError(
      reason instanceof Error && reason.message !== ''
        ? reason.message
        : t`The file could not be sent. Check the connection and try again.`,
    );
  };

  const preview = async (file: File) => {
    setError(null);
    const fileName = file.name;
    if (file.size > MAX_BYTES) {
      setError(t`${fileName} is over 5 MB, the most an import may be.`);
      return;
    }
    setStep({ kind: 'reading', fileName });
    try {
      const text = await file.text();
      const json = file.type === 'application/json' || /\.json$/i.test(fileName);
      const type = json ? 'application/json' : 'text/csv';
      const summary = await sendFile(auth, { text, type, dryRun: true });
      setStep({ kind: 'preview', fileName, text, type, summary });
    } catch (reason) {
      failed(reason);
    }
  };

  const apply = async () => {
    if (step.kind !== 'preview') return;
    const { fileName, text, type, summary } = step;
    setStep({ kind: 'importing', fileName, summary });
    try {
      setStep({ kind: 'done', summary: await sendFile(auth, { text, type, dryRun: false }) });
    } catch (reason) {
      failed(reason);
    }
  };

  const onDrop = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file) void preview(file);
  };

  const summary =
    step.kind === 'preview' || step.kind === 'importing' || step.kind === 'done'
      ? step.summary
      : null;
  const source = summary === null ? '' : FORMAT_NAMES[summary.format];
  const fileName = 'fileName' in step ? step.fileName : '';
  const nothingNew =
    summary !== null && summary.counters.create + summary.counters.update + summary.entries === 0;

  return (
    <Dialog labelledBy={titleId} describedBy={`${titleId}-about`} onClose={onClose}>
      {(close) => (
        <div>
          <h2 id={titleId} className="text-lg font-semibold">
            {t`Import`}
          </h2>
          <p id={`${titleId}-about`} className="hint mt-1">
            {step.kind === 'done'
              ? t`The import is done: the group now has the counters and log entries counted below. You can close this dialog.`
              : t`Add counters and their log from a file: a Tally export, a BetterCounter CSV or a Simple Counter backup. Nothing changes until you press Import.`}
          </p>
          {step.kind !== 'done' && (
            <label
              htmlFor={inputId}
              data-testid="import-drop"
              onDragOver={(event) => {
                event.preventDefault();
                setDragging(true);
              }}
              onDragLeave={() => {
                setDragging(false);
              }}
              onDrop={onDrop}
              className={`mt-4 flex flex-col items-center gap-2 rounded-xl border-2 border-dashed p-4 text-center text-sm ${
                dragging
                  ? 'border-sky-500 bg-sky-50 dark:bg-sky-950'
                  : 'border-zinc-300 dark:border-zinc-700'
              }`}
            >
              <span className="font-medium">{t`Choose a file, or drop it here`}</span>
              <input
                id={inputId}
                type="file"
                accept=".json,.csv,application/json,text/csv"
                disabled={step.kind === 'reading' || step.kind === 'importing'}
                onChange={(event) => {
                  const file = event.currentTarget.files?.[0];
                  if (file) void preview(file);
                }}
                className="max-w-full text-sm file:mr-3 file:rounded-lg file:border-0 file:bg-zinc-100 file:px-3 file:py-2 dark:file:bg-zinc-800"
              />
            </label>
          )}
          {step.kind === 'reading' && (
            <p role="status" className="mt-4 flex items-center gap-2 text-sm">
              <Loader className="size-4 animate-spin" />
              {t`Reading ${fileName}…`}
            </p>
          )}
          {error !== null && (
            <p role="alert" className={`mt-4 break-words ${errorText}`}>
              {error}
            </p>
          )}
          {summary !== null && (
            <section aria-labelledby={`${titleId}-summary`} aria-live="polite" className="mt-4">
              <h3 id={`${titleId}-summary`} className="text-sm font-medium break-words">
                {step.kind === 'done'
                  ? t`Imported from ${source}`
                  : t`If you import ${fileName} (${source})`}
              </h3>
              <dl className="mt-2 grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm">
                <dt>{t`New counters`}</dt>
                <dd className="text-end tabular-nums">{formatNumber(summary.counters.create)}</dd>
                <dt>{t`Counters changed`}</dt>
                <dd className="text-end tabular-nums">{formatNumber(summary.counters.update)}</dd>
                <dt>{t`Log entries added`}</dt>
                <dd className="text-end tabular-nums">{formatNumber(summary.entries)}</dd>
              </dl>
              {nothingNew && step.kind !== 'done' && (
                <p className="hint mt-2">{t`This file holds nothing new for this group: it was imported already.`}</p>
              )}
              {summary.warnings.length > 0 && (
                <>
                  <h4 className="mt-3 text-sm font-medium">{t`Left out or read differently`}</h4>
                  <ul className="mt-1 list-disc space-y-1 ps-5 text-sm break-words">
                    {summary.warnings.map((warning) => (
                      <li key={warning}>{warning}</li>
                    ))}
                  </ul>
                </>
              )}
            </section>
          )}
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <button
              type="button"
              onClick={close}
              className={step.kind === 'done' ? primaryButton : secondaryButton}
            >
              {step.kind === 'done' ? t`Close` : t`Cancel`}
            </button>
            {step.kind !== 'done' && (
              <button
                type="button"
                disabled={step.kind !== 'preview' || nothingNew}
                onClick={() => void apply()}
                className={primaryButton}
              >
                {step.kind === 'importing' ? (
                  <>
                    <Loader className="size-4 animate-spin" />
                    {t`Importing…`}
                  </>
                ) : (
                  t`Import`
                )}
              </button>
            )}
          </div>
        </div>
      )}
    </Dialog>
  );
}
