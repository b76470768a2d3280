import { Loader } from './icons/index.js';
import { useLingui } from '@lingui/react/macro';
import { useId, useState, type ReactNode } from 'react';
import { checkUrl } from '../../shared/rules.js';
import { counterImageFailed, problemText } from '../i18n/messages.js';
import { fullAddressHint, imageLoads } from '../lib/image.js';
import { errorText, textInput } from '../lib/ui.js';
import { Avatar } from './Avatar.js';
import { FormDialog, FormButtons } from './Dialog.js';

interface ImageUrlDialogProps {
  currentUrl: string | null;
  /** The URL to keep, normalised; null removes the image. Called only when it changed. */
  onSave: (url: string | null) => void;
  onClose: () => void;
}

/**
 * The dialog that sets an image by its URL (the group's profile picture, a counter's thumbnail;
 * docs/product.md#images). An empty field removes the image; any other URL is saved only once the
 * image has loaded, so nobody gets a broken picture.
 */
function ImageUrlDialog({
  currentUrl,
  onSave,
  onClose,
  title,
  preview,
  label,
  placeholder,
  hint,
  failedMessage,
  removeLabel,
}: ImageUrlDialogProps & {
  title: string;
  /** The image as it is now, above the field. */
  preview: ReactNode;
  label: string;
  placeholder: string;
  hint: string;
  /** Shown when the image at the URL does not load. */
  failedMessage: string;
  /** A button that removes the image at once, offered while there is one. */
  removeLabel?: string;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const [draft, setDraft] = useState(currentUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const save = async (close: () => void) => {
    // A path such as /icons/icon-192.png is an image of this very site.
    const parsed = checkUrl(draft, window.location.origin);
    if (!parsed.ok) {
      setError(problemText(parsed.problem));
      return;
    }
    if (parsed.value !== null) {
      setChecking(true);
      setError(null);
      const ok = await imageLoads(parsed.value);
      setChecking(false);
      if (!ok) {
        setError(failedMessage);
        return;
      }
    }
    if (parsed.value !== currentUrl) onSave(parsed.value);
    close();
  };

  return (
    <FormDialog
      titleId={titleId}
      title={title}
      onClose={onClose}
      onSubmit={(close) => {
        void save(close);
      }}
    >
      {(close) => (
        <>
          {preview}
          <label htmlFor={inputId} className="mt-5 block text-sm font-medium">
            {label}
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
            placeholder={placeholder}
            aria-invalid={error !== null}
            aria-describedby={error ? `${errorId} ${hintId}` : hintId}
            autoComplete="off"
            className={`mt-1.5 ${textInput}`}
          />
          <p id={hintId} className="hint mt-1.5">
            {hint}
          </p>
          {error && (
            <div id={errorId} role="alert" className={`mt-2 ${errorText}`}>
              <p>{error}</p>
              {!/^(https?:\/)?\//i.test(draft.trim()) && (
                <p className="mt-1">{fullAddressHint()}</p>
              )}
            </div>
          )}
          <FormButtons
            onCancel={close}
            remove={
              removeLabel !== undefined && currentUrl !== null
                ? {
                    label: removeLabel,
                    onRemove: () => {
                      onSave(null);
                      close();
                    },
                  }
                : undefined
            }
            busy={
              checking ? (
                <>
                  <Loader className="size-4 animate-spin" />
                  {t`Checking image...`}
                </>
              ) : undefined
            }
          />
        </>
      )}
    </FormDialog>
  );
}

/** The group's Profile Picture dialog, opened from the header (docs/product.md#header). */
export function ProfilePictureDialog({
  groupName,
  ...props
}: ImageUrlDialogProps & { groupName: string }) {
  const { t } = useLingui();
  return (
    <ImageUrlDialog
      {...props}
      title={t`Profile Picture`}
      preview={
        <div className="mt-5 flex justify-center">
          <Avatar
            url={props.currentUrl}
            name={groupName}
            size={96}
            className="ring-4 ring-zinc-100 dark:ring-zinc-800"
          />
        </div>
      }
      label={t`Image URL`}
      placeholder="https://example.com/picture.png"
      hint={t`Leave empty to remove the picture.`}
      failedMessage={t`Could not load image from this URL. Please check the link and try again.`}
    />
  );
}

/** Add, change or remove a counter's thumbnail (in a dialog: the card keeps its size). */
export function ThumbnailDialog(props: ImageUrlDialogProps) {
  const { t } = useLingui();
  const { currentUrl } = props;
  return (
    <ImageUrlDialog
      {...props}
      title={currentUrl === null ? t`Add thumbnail` : t`Change thumbnail`}
      preview={
        currentUrl !== null && (
          <img
            src={currentUrl}
            alt=""
            width={96}
            height={96}
            referrerPolicy="no-referrer"
            className="mx-auto mt-5 size-24 rounded-2xl bg-zinc-100 object-cover dark:bg-zinc-800"
          />
        )
      }
      label={t`Thumbnail URL`}
      placeholder="https://example.com/image.png"
      hint={t`Supports JPG, PNG, GIF, WebP, SVG`}
      failedMessage={counterImageFailed()}
      removeLabel={t`Remove thumbnail`}
    />
  );
}
