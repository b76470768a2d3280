import { useLingui } from '@lingui/react/macro';
import { useEffect, useState, type ComponentType } from 'react';
import { COPIED_MS, COPY_ERROR_MS } from '../../shared/limits.js';
import { copyText } from '../lib/clipboard.js';
import { secondaryButton } from '../lib/ui.js';
import { Check } from './icons/index.js';

/**
 * A button that copies text: its label reads Copied! for 2 s after a copy, and a refused copy shows
 * the copy error for 3 s (docs/product.md#header). The group screen's Share URL button and the
 * share dialog's Copy link button are both this.
 */
export function CopyButton({
  text,
  label,
  Icon,
  className = '',
}: {
  text: string;
  label: string;
  Icon: ComponentType<{ className?: string }>;
  /** Classes of the wrapper, which positions the error under the button. */
  className?: string;
}) {
  const { t } = useLingui();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(
      () => {
        setState('idle');
      },
      state === 'copied' ? COPIED_MS : COPY_ERROR_MS,
    );
    return () => {
      clearTimeout(timer);
    };
  }, [state]);

  return (
    <div className={`relative ${className}`}>
      <button
        type="button"
        onClick={() => {
          copyText(text).then(
            () => {
              setState('copied');
            },
            () => {
              setState('failed');
            },
          );
        }}
        className={`${secondaryButton} w-full`}
      >
        {state === 'copied' ? (
          <Check className="size-4 text-emerald-600 dark:text-emerald-400" />
        ) : (
          <Icon className="size-4" />
        )}
        <span aria-live="polite">{state === 'copied' ? t`Copied!` : label}</span>
      </button>
      {state === 'failed' && (
        <p role="alert" className="copy-error">
          {t`Failed to copy URL to clipboard. Please copy manually.`}
        </p>
      )}
    </div>
  );
}
