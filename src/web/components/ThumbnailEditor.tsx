import { LoaderCircle } from 'lucide-react';
import { useId, useState } from 'react';
import { MESSAGES } from '../../shared/messages.js';
import { normaliseUrl } from '../../shared/rules.js';
import { imageLoads } from '../lib/image.js';
import { errorText, primaryButton, secondaryButton, textInput } from '../lib/ui.js';

/** SPEC §4/§5: add, change or remove a counter's thumbnail; an image must load to be saved. */
export function ThumbnailEditor({
  currentUrl,
  onSave,
  onClose,
}: {
  currentUrl: string | null;
  onSave: (url: string | null) => void;
  onClose: () => void;
}) {
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const [draft, setDraft] = useState(currentUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const save = async () => {
    const parsed = normaliseUrl(draft);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    if (parsed.value !== null) {
      setChecking(true);
      setError(null);
      const ok = await imageLoads(parsed.value);
      setChecking(false);
      if (!ok) {
        setError(MESSAGES.counterImageFailed);
        return;
      }
    }
    if (parsed.value !== currentUrl) onSave(parsed.value);
    onClose();
  };

  return (
    <form
      noValidate
      aria-label="Thumbnail"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onClose();
        }
      }}
      className="rounded-xl border border-zinc-200 bg-zinc-50 p-3 dark:border-zinc-800 dark:bg-zinc-950/60"
    >
      <label htmlFor={inputId} className="block text-sm font-medium">
        Thumbnail URL
      </label>
      <input
        id={inputId}
        type="url"
        inputMode="url"
        autoFocus
        value={draft}
        onChange={(event) => {
          setDraft(event.target.value);
          setError(null);
        }}
        placeholder="https://example.com/image.png"
        aria-invalid={error !== null}
        aria-describedby={error ? `${errorId} ${hintId}` : hintId}
        autoComplete="off"
        className={`mt-1.5 ${textInput}`}
      />
      <p id={hintId} className="hint mt-1.5">
        {MESSAGES.thumbnailHint}
      </p>
      {error && (
        <p id={errorId} role="alert" className={`mt-2 ${errorText}`}>
          {error}
        </p>
      )}
      <div className="mt-3 flex flex-wrap justify-end gap-2">
        {currentUrl !== null && (
          <button
            type="button"
            onClick={() => {
              onSave(null);
              onClose();
            }}
            className={`${secondaryButton} mr-auto px-3 py-2`}
          >
            Remove thumbnail
          </button>
        )}
        <button type="button" onClick={onClose} className={`${secondaryButton} px-3 py-2`}>
          Cancel
        </button>
        <button type="submit" disabled={checking} className={`${primaryButton} px-3 py-2`}>
          {checking && <LoaderCircle className="size-4 animate-spin" aria-hidden="true" />}
          {checking ? 'Checking image...' : 'Save'}
        </button>
      </div>
    </form>
  );
}
