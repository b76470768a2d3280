import { ArrowRight, Key, Loader, Users } from '../components/icons/index.js';
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { useEffect, useId, useState, type SyntheticEvent } from 'react';
import type { GroupPreview } from '../../shared/api.js';
import { GROUP_LOOKUP_DEBOUNCE_MS, KEY_GENERATION_MS } from '../../shared/limits.js';
import { checkGroupName, isValidKeyFormat } from '../../shared/rules.js';
import { problemText } from '../i18n/messages.js';
import { Footer } from '../components/Footer.js';
import { Logo } from '../components/Logo.js';
import { TopBar } from '../components/TopBar.js';
import { ApiRequestError, fetchGroupPreview, joinGroup } from '../lib/api.js';
import { handOver } from '../lib/opening.js';
import { whenIdle } from '../lib/idle.js';
import { generateAccessKey } from '../lib/ids.js';
import { groupUrl, navigate } from '../lib/router.js';
import {
  card,
  errorText,
  mutedText,
  primaryButton,
  secondaryButton,
  textInput,
} from '../lib/ui.js';

type Lookup =
  | { state: 'idle' }
  | { state: 'exists'; slug: string; preview: GroupPreview }
  | { state: 'absent'; slug: string }
  | { state: 'error'; slug: string; message: string };

type FieldError = { field: 'name' | 'key' | 'form'; message: string };

/** Shown when the typed key is not one (docs/product.md#access-keys). */
const invalidKey = () => t`Access key not valid. Generate a new one.`;

export function Landing() {
  const { t } = useLingui();
  const nameId = useId();
  const keyId = useId();
  const nameErrorId = useId();
  const keyErrorId = useId();
  const noteId = useId();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [generating, setGenerating] = useState(false);
  const [lookup, setLookup] = useState<Lookup>({ state: 'idle' });
  const [error, setError] = useState<FieldError | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [logoFailed, setLogoFailed] = useState<string | null>(null);

  const parsedName = checkGroupName(name);
  const slug = parsedName.ok ? parsedName.value : null;
  // A lookup answer only counts for the name it was made for.
  const current = lookup.state !== 'idle' && lookup.slug === slug ? lookup : null;
  const exists = current?.state === 'exists';

  useEffect(() => {
    document.title = 'Tally';
    // Most visits continue to a group: have its screen ready by then.
    whenIdle(() => {
      void import('./Group.js');
    });
  }, []);

  // Look the group up once typing has paused for 300 ms (one request per pause).
  useEffect(() => {
    if (slug === null) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetchGroupPreview(slug, controller.signal).then(
        (preview) => {
          setLookup(preview ? { state: 'exists', slug, preview } : { state: 'absent', slug });
        },
        (lookupError: unknown) => {
          if (controller.signal.aborted) return;
          const message = lookupError instanceof Error ? lookupError.message : String(lookupError);
          setLookup({ state: 'error', slug, message: t`Error checking group: ${message}` });
        },
      );
    }, GROUP_LOOKUP_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [slug]);

  // The 300 ms start once "Generating..." is on screen, not at the click: on a busy device the
  // render can come tens of milliseconds after the click, and the label must still show in full.
  useEffect(() => {
    if (!generating) return;
    const timer = setTimeout(() => {
      setKey(generateAccessKey());
      setGenerating(false);
      setError((current) => (current?.field === 'key' ? null : current));
    }, KEY_GENERATION_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [generating]);

  const generate = () => {
    setGenerating(true);
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (submitting) return;
    if (!parsedName.ok) {
      setError({ field: 'name', message: problemText(parsedName.problem) });
      return;
    }
    const trimmedKey = key.trim();
    if (!isValidKeyFormat(trimmedKey)) {
      setError({ field: 'key', message: invalidKey() });
      return;
    }
    setError(null);
    setSubmitting(true);
    try {
      const snapshot = await joinGroup(parsedName.value, trimmedKey);
      handOver(trimmedKey, snapshot);
      navigate(groupUrl(snapshot.group.name, trimmedKey));
    } catch (joinError) {
      setSubmitting(false);
      setError(landingError(joinError));
    }
  };

  const preview = current?.state === 'exists' ? current.preview : null;
  const pictureUrl = preview?.profileImageUrl ?? null;
  const previewName = preview?.name ?? t`Group`;
  const showPicture = pictureUrl !== null && logoFailed !== pictureUrl;
  const nameError = error?.field === 'name' ? error.message : null;
  const keyError = error?.field === 'key' ? error.message : null;

  return (
    <div className="flex min-h-dvh flex-col">
      <TopBar />
      <main className="mx-auto flex w-full max-w-md flex-1 flex-col justify-center px-4 pt-8 pb-6 sm:px-6">
        <div className="flex flex-col items-center text-center">
          {showPicture ? (
            <img
              src={pictureUrl}
              alt={t`${previewName} profile picture`}
              width={72}
              height={72}
              referrerPolicy="no-referrer"
              onError={() => {
                setLogoFailed(pictureUrl);
              }}
              className="size-[72px] rounded-full object-cover shadow-md ring-4 ring-white dark:ring-zinc-900"
            />
          ) : (
            <Logo size={72} />
          )}
          <h1 className="mt-5 text-3xl font-bold tracking-tight sm:text-4xl">Tally</h1>
          <p
            className={`mt-3 text-base text-balance ${mutedText}`}
          >{t`Create or join a group with counters for anything imaginable! Secure and in real-time!`}</p>
        </div>

        <form
          noValidate
          onSubmit={(event) => void submit(event)}
          className={`${card} mt-8 p-5 sm:p-6`}
        >
          <label htmlFor={nameId} className="block text-sm font-medium">
            {t`Unique Group Name`}
          </label>
          <input
            id={nameId}
            value={name}
            onChange={(event) => {
              setName(event.target.value);
              if (error?.field !== 'key') setError(null);
            }}
            placeholder={t`e.g. climbing-club`}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            aria-invalid={nameError !== null}
            aria-describedby={nameError ? nameErrorId : undefined}
            className={`mt-1.5 ${textInput}`}
          />
          <div className="mt-1.5 min-h-5 text-xs">
            {nameError ? (
              <p id={nameErrorId} role="alert" className={errorText}>
                {nameError}
              </p>
            ) : current?.state === 'error' ? (
              <p role="alert" className={errorText}>
                {current.message}
              </p>
            ) : exists ? (
              <p className="inline-flex items-center gap-1.5 font-medium text-indigo-700 dark:text-indigo-300">
                <Users className="size-3.5" />
                {t`This group already exists`}
              </p>
            ) : slug !== null && slug !== name ? (
              <p className={mutedText}>
                {t`Link:`} <span className="font-mono">/{slug}</span>
              </p>
            ) : null}
          </div>

          <label htmlFor={keyId} className="mt-3 block text-sm font-medium">
            {t`Access Key`}
          </label>
          <input
            id={keyId}
            value={key}
            onChange={(event) => {
              setKey(event.target.value);
              if (error?.field === 'key' || error?.field === 'form') setError(null);
            }}
            placeholder={t`16–128 hex characters`}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            aria-invalid={keyError !== null}
            aria-describedby={
              [keyError ? keyErrorId : '', exists ? noteId : ''].join(' ').trim() || undefined
            }
            className={`mt-1.5 font-mono ${textInput}`}
          />
          {keyError && (
            <p id={keyErrorId} role="alert" className={`mt-1.5 ${errorText}`}>
              {keyError}
            </p>
          )}
          <button
            type="button"
            onClick={generate}
            disabled={generating}
            className={`${secondaryButton} mt-2.5 w-full`}
          >
            {generating ? <Loader className="size-4 animate-spin" /> : <Key className="size-4" />}
            {generating ? t`Generating...` : t`Generate Secure Key`}
          </button>

          {exists && (
            <p
              id={noteId}
              className="mt-4 rounded-xl border border-indigo-200 bg-indigo-50 px-3.5 py-2.5 text-sm text-indigo-900 dark:border-indigo-900/60 dark:bg-indigo-950/40 dark:text-indigo-200"
            >
              {t`This group already exists. Enter the correct access key to join.`}
            </p>
          )}

          {error?.field === 'form' && (
            <p role="alert" className="mt-4 alert-error px-3.5 py-2.5">
              {error.message}
            </p>
          )}

          <button
            type="submit"
            disabled={submitting}
            className={`${primaryButton} mt-5 w-full py-3 text-base`}
          >
            {exists ? t`Join Group` : t`Create Group`}
            {submitting ? (
              <Loader className="size-4 animate-spin" />
            ) : (
              <ArrowRight className="size-4 rtl:-scale-x-100" />
            )}
          </button>
        </form>
      </main>
      <Footer />
    </div>
  );
}

/** The landing page's messages for a failed join. */
function landingError(error: unknown): FieldError {
  if (error instanceof ApiRequestError) {
    switch (error.code) {
      case 'wrong_key':
        return {
          field: 'form',
          message: t`This group already exists and the access key is incorrect. Please use the correct key or choose a different group name.`,
        };
      case 'invalid_key_format':
      case 'missing_key':
        return { field: 'key', message: invalidKey() };
      case 'invalid_group_name':
        return { field: 'name', message: error.message };
      default:
        break;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return { field: 'form', message: t`Error validating group access: ${message}` };
}
