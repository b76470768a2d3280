/**
 * The `?` overlay: the keys of the group screen (docs/product.md#keys-and-clickers). A separate
 * chunk, loaded on demand.
 */
import { t } from '@lingui/core/macro';
import { useId } from 'react';
import { mutedText, primaryButton } from '../lib/ui.js';
import { Dialog } from './Dialog.js';

/**
 * The rows of the help overlay, in the order shown. Keys are named as printed on an English
 * keyboard (and as browsers name them), in every language.
 */
const keyHelp = (): readonly { keys: readonly string[]; does: string }[] => [
  { keys: ['1', '…', '9'], does: t`Select the counter in that position` },
  { keys: ['+', '=', '↑', 'Page Up'], does: t`Increment the selected counter by its step` },
  { keys: ['-', '↓', 'Page Down'], does: t`Decrement the selected counter by its step` },
  { keys: ['f'], does: t`Open focus mode for the selected counter` },
  { keys: ['?'], does: t`Show this list of keys` },
  { keys: ['Esc'], does: t`Close focus mode or this list` },
];

export function KeysHelp({ readOnly, onClose }: { readOnly: boolean; onClose: () => void }) {
  const titleId = useId();
  return (
    <Dialog labelledBy={titleId} onClose={onClose}>
      {(close) => (
        <div data-testid="keys-help">
          <h2 id={titleId} className="text-lg font-semibold">
            {t`Keyboard and clickers`}
          </h2>
          <p className={`mt-1 text-sm ${mutedText}`}>
            {readOnly
              ? t`This link is view-only: you can select counters, not change them.`
              : t`Presenter clickers and foot pedals send Page Up and Page Down.`}
          </p>
          <dl className="mt-4 flex flex-col gap-3">
            {keyHelp().map((row) => (
              <div
                key={row.does}
                className="grid items-baseline gap-1 sm:grid-cols-[10.5rem_1fr] sm:gap-3"
              >
                <dt className="flex flex-wrap gap-1">
                  {row.keys.map((key) =>
                    key === '…' ? (
                      <span key={key} aria-hidden="true">
                        …
                      </span>
                    ) : (
                      <kbd
                        key={key}
                        className="rounded border border-zinc-300 bg-zinc-100 px-1.5 py-0.5 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-800"
                      >
                        {key}
                      </kbd>
                    ),
                  )}
                </dt>
                <dd className="text-sm">{row.does}</dd>
              </div>
            ))}
          </dl>
          <div className="mt-6 flex justify-end">
            <button type="button" onClick={close} className={primaryButton}>
              {t`Close`}
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
