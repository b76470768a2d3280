import { useLingui } from '@lingui/react/macro';
import { useId } from 'react';
import { dangerButton, secondaryButton } from '../lib/ui.js';
import { Dialog } from './Dialog.js';

export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const messageId = useId();
  return (
    <Dialog role="alertdialog" labelledBy={titleId} describedBy={messageId} onClose={onClose}>
      {(close) => (
        <>
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          <p id={messageId} className="mt-2 text-zinc-600 dark:text-zinc-300">
            {message}
          </p>
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            {/* Cancel first in focus order: the safe choice is the default. */}
            <button type="button" autoFocus onClick={close} className={secondaryButton}>
              {t`Cancel`}
            </button>
            <button
              type="button"
              onClick={() => {
                onConfirm();
                close();
              }}
              className={dangerButton}
            >
              {confirmLabel}
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
