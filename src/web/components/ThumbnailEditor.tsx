import { Loader } from './icons.js';
import { useId, useState } from 'react';
import { MESSAGES } from '../../shared/messages.js';
import { normaliseUrl } from '../../shared/rules.js';
import { imageLoads } from '../lib/image.js';
import { errorText, primaryButton, secondaryButton, textInput } from '../lib/ui.js';
import { Dialog } from './Dialog.js';

/**
 * SPEC §4/§5: add, change or remove a counter's thumbnail, in a dialog so the card keeps its size;
 * an image must load to be saved.
 */
export function ThumbnailEditor({
  currentUrl,
  onSave,
  onClose,
}: {
  currentUrl: string | null;
  onSave: (url: string | null) => void;
  onClose: () => void;
}) {
  const titleId = useId();
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const [draft, setDraft] = useState(currentUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const save = async (close: () => void) => {
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
    close();
  };

  return (
    <Dialog labelledBy={titleId} onClose={onClose}>
      {(close) => (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void save(close);
          }}
        >
          <h2 id={titleId} className="text-lg font-semibold">
            {currentUrl === null ? 'Add thumbnail' : 'Change thumbnail'}
          </h2>
          {currentUrl !== null && (
            <img
              src={currentUrl}
              alt=""
              width={96}
              height={96}
              referrerPolicy="no-referrer"
              className="mx-auto mt-5 size-24 rounded-2xl bg-zinc-100 object-cover dark:bg-zinc-800"
            />
          )}
          <label htmlFor={inputId} className="mt-5 block text-sm font-medium">
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
          <div className="mt-6 flex flex-wrap justify-end gap-2">
            {currentUrl !== null && (
              <button
                type="button"
                onClick={() => {
                  onSave(null);
                  close();
                }}
                className={`${secondaryButton} mr-auto px-3 py-2`}
              >
                Remove thumbnail
              </button>
            )}
            <button type="button" onClick={close} className={`${secondaryButton} px-3 py-2`}>
              Cancel
            </button>
            <button type="submit" disabled={checking} className={`${primaryButton} px-3 py-2`}>
              {checking && <Loader className="size-4 animate-spin" />}
              {checking ? 'Checking image...' : 'Save'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
