/**
 * The error banner and the button that dismisses a message, written once for every screen and
 * panel that shows them (the tests find them by role and name: an alert, 'Dismiss error').
 */
import { useLingui } from '@lingui/react/macro';
import type { ReactNode } from 'react';
import { CircleAlert, X } from './icons/index.js';

/**
 * An error in a red banner, announced as an alert: the group screen's failed counter operations
 * (docs/product.md#body), the activity panel's failed load, undo or export, the By member board's
 * failed load. With `onDismiss` it ends in a 'Dismiss error' button; `action` (e.g. Try again)
 * goes before it, or instead of it.
 */
export function ErrorBanner({
  message,
  onDismiss,
  action,
  inPanel = false,
}: {
  message: string;
  onDismiss?: () => void;
  action?: ReactNode;
  /** Tighter, inset from the edges: inside the activity panel rather than over the grid. */
  inPanel?: boolean;
}) {
  const { t } = useLingui();
  return (
    <div
      role="alert"
      className={`alert-error flex items-start ${inPanel ? 'mx-4 mt-3 gap-2 px-3 py-2' : 'mb-5 gap-3 px-4 py-3'}`}
    >
      <CircleAlert className="mt-0.5 size-4 shrink-0" />
      <p className="flex-1">{message}</p>
      {action}
      {onDismiss && (
        <DismissButton label={t`Dismiss error`} onClick={onDismiss} className="banner-close" />
      )}
    </div>
  );
}

/**
 * An X that takes a message away (a banner, a toast, a notice). Its name says what it dismisses;
 * `className` gives its size and hover colour, which follow the message's own colours.
 */
export function DismissButton({
  label,
  onClick,
  className,
}: {
  label?: string;
  onClick: () => void;
  className: string;
}) {
  const { t } = useLingui();
  return (
    <button type="button" aria-label={label ?? t`Dismiss`} onClick={onClick} className={className}>
      <X className="size-4" />
    </button>
  );
}
