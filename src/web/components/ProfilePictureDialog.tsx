import { Loader } from './icons.js';
import { useId, useState, type SyntheticEvent } from 'react';
import { MESSAGES } from '../../shared/messages.js';
import { normaliseUrl } from '../../shared/rules.js';
import { imageLoads } from '../lib/image.js';
import { errorText, primaryButton, secondaryButton, textInput } from '../lib/ui.js';
import { Avatar } from './Avatar.js';
import { Dialog } from './Dialog.js';

/** SPEC §2/§4: the Profile Picture dialog; an image is saved only once it has loaded. */
export function ProfilePictureDialog({
  currentUrl,
  groupName,
  onSave,
  onClose,
}: {
  currentUrl: string | null;
  groupName: string;
  onSave: (url: string | null) => void;
  onClose: () => void;
}) {
  const titleId = useId();
  const inputId = useId();
  const errorId = useId();
  const [draft, setDraft] = useState(currentUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [preview, setPreview] = useState<string | null>(currentUrl);

  const save = async (close: () => void) => {
    const parsed = normaliseUrl(draft);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    const url = parsed.value;
    if (url !== null) {
      setChecking(true);
      setError(null);
      const ok = await imageLoads(url);
      setChecking(false);
      if (!ok) {
        setError(MESSAGES.profileImageFailed);
        return;
      }
      setPreview(url);
    }
    if (url !== currentUrl) onSave(url);
    close();
  };

  return (
    <Dialog labelledBy={titleId} onClose={onClose}>
      {(close) => (
        <form
          noValidate
          onSubmit={(event: SyntheticEvent) => {
            event.preventDefault();
            void save(close);
          }}
        >
          <h2 id={titleId} className="text-lg font-semibold">
            Profile Picture
          </h2>
          <div className="mt-5 flex justify-center">
            <Avatar
              url={preview}
              name={groupName}
              size={96}
              className="ring-4 ring-zinc-100 dark:ring-zinc-800"
            />
          </div>
          <label htmlFor={inputId} className="mt-5 block text-sm font-medium">
            Image URL
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
            placeholder="https://example.com/picture.png"
            aria-invalid={error !== null}
            aria-describedby={error ? errorId : undefined}
            autoComplete="off"
            className={`mt-1.5 ${textInput}`}
          />
          <p className="hint mt-1.5">Leave empty to remove the picture.</p>
          {error && (
            <p id={errorId} role="alert" className={`mt-2 ${errorText}`}>
              {error}
            </p>
          )}
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <button type="button" onClick={close} className={secondaryButton}>
              Cancel
            </button>
            <button type="submit" disabled={checking} className={primaryButton}>
              {checking && <Loader className="size-4 animate-spin" />}
              {checking ? 'Checking image...' : 'Save'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
