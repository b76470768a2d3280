/**
 * A modal on the native <dialog> element: showModal() gives the focus trap, Escape, the backdrop
 * and focus return for free (and zero kilobytes). Mounted only while open.
 */
import { useLingui } from '@lingui/react/macro';
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { primaryButton, secondaryButton } from '../lib/ui.js';

interface DialogProps {
  labelledBy: string;
  describedBy?: string;
  onClose: () => void;
  children: (close: () => void) => ReactNode;
  className?: string;
  role?: 'dialog' | 'alertdialog';
}

export function Dialog({
  labelledBy,
  describedBy,
  onClose,
  children,
  className = '',
  role = 'dialog',
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);

  // A layout effect: the dialog opens (and takes focus) in the same task as the click that asked
  // for it, before the browser paints the page without it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
    };
  }, []);

  const close = () => {
    const dialog = ref.current;
    if (dialog?.open) dialog.close();
    else onClose();
  };

  return (
    <dialog
      ref={ref}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onClose={() => {
        // `close` events are queued, not dispatched at once: one from the cleanup above can arrive
        // after the dialog was opened again (React's StrictMode unmounts and remounts every effect
        // once in development). Only a dialog that is still closed has really been closed.
        if (ref.current?.open) return;
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the <dialog> itself (the content fills the box).
        if (event.target === event.currentTarget) close();
      }}
      className={`m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl border border-zinc-200 bg-white p-0 text-zinc-900 shadow-2xl dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100 ${className}`}
    >
      <div className="p-5 sm:p-6">{children(close)}</div>
    </dialog>
  );
}

/**
 * A dialog that is one form under a title, as every settings dialog is: Enter submits it, the
 * browser's own validation bubbles stay off (each field explains itself on screen), and
 * `onSubmit` gets the dialog's close.
 */
export function FormDialog({
  titleId,
  title,
  describedBy,
  onClose,
  onSubmit,
  children,
}: {
  titleId: string;
  title: ReactNode;
  describedBy?: string;
  onClose: () => void;
  onSubmit: (close: () => void) => void;
  children: (close: () => void) => ReactNode;
}) {
  return (
    <Dialog labelledBy={titleId} describedBy={describedBy} onClose={onClose}>
      {(close) => (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            onSubmit(close);
          }}
        >
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          {children(close)}
        </form>
      )}
    </Dialog>
  );
}

/**
 * A form dialog's buttons, alike in every dialog: an optional remove button first (on the left on
 * wide screens), Cancel, and Save, the form's submit; while `busy` is given, Save shows it and
 * waits.
 */
export function FormButtons({
  onCancel,
  remove,
  busy,
}: {
  onCancel: () => void;
  remove?: { label: string; onRemove: () => void } | undefined;
  busy?: ReactNode;
}) {
  const { t } = useLingui();
  return (
    <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
      {remove && (
        <button type="button" onClick={remove.onRemove} className={`${secondaryButton} sm:mr-auto`}>
          {remove.label}
        </button>
      )}
      <button type="button" onClick={onCancel} className={secondaryButton}>
        {t`Cancel`}
      </button>
      <button type="submit" disabled={busy !== undefined} className={primaryButton}>
        {busy ?? t`Save`}
      </button>
    </div>
  );
}
