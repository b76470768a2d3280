/**
 * The share dialog's Tap links tab (docs/product.md#tap-links), for the group's access key: a form
 * that makes a link (a label, which counters, which directions), the new link with its QR code
 * shown this once (the server keeps only its hash), and the group's links with what each may do,
 * when it was made and last used, its taps, and Revoke (after a confirm step).
 *
 * Its own chunk, loaded when the tab is chosen: most members never open it.
 */
import { plural, t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { Counter } from '../../shared/api.js';
import type {
  TapLinkBodyInput,
  TapLinkCreated,
  TapLinkList,
  TapLinkScope,
  TapLinkView,
  TapRight,
} from '../../shared/links.js';
import { ApiRequestError, groupPath, request } from '../lib/api.js';
import { sectionNames } from '../lib/counter-settings.js';
import { relativeTime } from '../lib/describe.js';
import { newOperationId } from '../lib/ids.js';
import { groupUrl } from '../lib/router.js';
import { MAX_TAP_LINKS_PER_GROUP, TAP_LINK_LABEL_MAX_LENGTH } from '../../shared/link-rules.js';
import { rightsSummary, scopeSummary } from '../lib/tap-link-words.js';
import { formatNumber } from '../i18n/format.js';
import { errorText, mutedText, primaryButton, secondaryButton, textInput } from '../lib/ui.js';
import { CopyButton } from './CopyButton.js';
import { Copy, Loader } from './icons/index.js';
import { ConfirmButtons, QrCode } from './ShareDialog.js';

const LABEL_MAX = TAP_LINK_LABEL_MAX_LENGTH;
const LINKS_MAX = MAX_TAP_LINKS_PER_GROUP;

type ScopeChoice = 'all' | 'counters' | 'section';
type RightsChoice = 'both' | 'increment' | 'decrement';

const RIGHTS: { value: RightsChoice; can: TapRight[] }[] = [
  { value: 'both', can: ['increment', 'decrement'] },
  { value: 'increment', can: ['increment'] },
  { value: 'decrement', can: ['decrement'] },
];

const counterName = (counter: Counter) => (counter.name === '' ? t`Counter Name` : counter.name);

function problem(error: unknown, fallback: string): string {
  return error instanceof ApiRequestError && error.serverMessage ? error.serverMessage : fallback;
}

/** A scope in words, counting only the chosen counters the group still has. */
function scopeWords(scope: TapLinkScope, counters: readonly Counter[]): string {
  if (!('counterIds' in scope)) return scopeSummary(scope);
  const ids = new Set(counters.map((counter) => counter.id));
  return scopeSummary(scope, scope.counterIds.filter((id) => ids.has(id)).length);
}

export function TapLinksPanel({
  slug,
  accessKey,
  counters,
}: {
  slug: string;
  accessKey: string;
  counters: readonly Counter[];
}) {
  const { t } = useLingui();
  const path = `${groupPath(slug)}/links`;
  const [list, setList] = useState<TapLinkList | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [created, setCreated] = useState<TapLinkCreated | null>(null);
  const [reload, setReload] = useState(0);
  const listHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let cancelled = false;
    request<TapLinkList>('GET', path, { key: accessKey }).then(
      (answer) => {
        if (cancelled) return;
        setList(answer);
        setListError(null);
      },
      (reason: unknown) => {
        if (!cancelled) setListError(problem(reason, t`The tap links could not be loaded.`));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [path, accessKey, reload]);

  const limit = list?.limits.links ?? LINKS_MAX;
  const full = list !== null && list.links.length >= limit;
  const used = formatNumber(list?.links.length ?? 0);
  const max = formatNumber(limit);

  return (
    <div className="mt-4">
      <h3 className="text-sm font-semibold">{t`Tap links`}</h3>
      <p className={`mt-0.5 text-sm ${mutedText}`}>
        {t`A tap link lets a volunteer count the counters you choose, and nothing else: no editing, no settings, no sharing. Each change it makes shows its label beside the member’s name in the activity log.`}
      </p>
      {created !== null ? (
        <CreatedLink
          slug={slug}
          link={created}
          counters={counters}
          onDone={() => {
            setCreated(null);
          }}
        />
      ) : (
        <LinkForm
          path={path}
          accessKey={accessKey}
          counters={counters}
          full={full}
          limit={limit}
          onCreated={(link) => {
            setCreated(link);
            setReload((n) => n + 1);
          }}
        />
      )}

      <section className="mt-5 border-t border-zinc-200 pt-4 dark:border-zinc-800">
        <h3 ref={listHeading} tabIndex={-1} className="text-sm font-semibold">
          {t`Links of this group`}
        </h3>
        <p className={`mt-0.5 text-sm ${mutedText}`}>
          {list === null ? '' : `${t`${used} of ${max}.`} `}
          {plural(limit, {
            one: 'A group can have up to # tap link at once; revoke one to make another.',
            other: 'A group can have up to # tap links at once; revoke one to make another.',
          })}
        </p>
        {listError !== null && (
          <p role="alert" className={`mt-2 text-sm ${errorText}`}>
            {listError}
          </p>
        )}
        {list === null ? (
          listError === null && (
            <p role="status" className={`mt-3 flex items-center gap-2 text-sm ${mutedText}`}>
              <Loader className="size-4 animate-spin" />
              {t`Loading tap links…`}
            </p>
          )
        ) : list.links.length === 0 ? (
          <p className={`mt-3 text-sm ${mutedText}`}>{t`No tap links yet.`}</p>
        ) : (
          <ul aria-label={t`Tap links`} className="tap-link-list">
            {list.links.map((link) => (
              <LinkRow
                key={link.id}
                link={link}
                path={path}
                accessKey={accessKey}
                counters={counters}
                onRevoked={() => {
                  setList((current) =>
                    current === null
                      ? current
                      : { ...current, links: current.links.filter((l) => l.id !== link.id) },
                  );
                  listHeading.current?.focus();
                }}
              />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** The form that makes a link: its label, which counters, which directions. */
function LinkForm({
  path,
  accessKey,
  counters,
  full,
  limit,
  onCreated,
}: {
  path: string;
  accessKey: string;
  counters: readonly Counter[];
  /** The group has as many links as it may: the form says so instead of sending. */
  full: boolean;
  limit: number;
  onCreated: (link: TapLinkCreated) => void;
}) {
  const { t } = useLingui();
  const id = useId();
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<ScopeChoice>('all');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [sections] = useState(() => sectionNames(counters));
  const [section, setSection] = useState(() => sections[0] ?? '');
  const [rights, setRights] = useState<RightsChoice>('both');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const labelMax = formatNumber(LABEL_MAX);
  const submit = () => {
    if (scope === 'counters' && chosen.size === 0) {
      setError(t`Choose at least one counter for this link.`);
      return;
    }
    const body: TapLinkBodyInput = {
      label,
      scope:
        scope === 'all'
          ? { all: true }
          : scope === 'section'
            ? { section }
            : { counterIds: counters.filter((c) => chosen.has(c.id)).map((c) => c.id) },
      can: RIGHTS.find((choice) => choice.value === rights)?.can ?? ['increment', 'decrement'],
    };
    setBusy(true);
    setError(null);
    request<TapLinkCreated>('POST', path, {
      key: accessKey,
      body,
      opId: newOperationId(),
    }).then(
      (link) => {
        setBusy(false);
        onCreated(link);
      },
      (reason: unknown) => {
        setBusy(false);
        setError(problem(reason, t`The tap link could not be made. Please try again.`));
      },
    );
  };

  return (
    <form
      noValidate
      aria-labelledby={`${id}-title`}
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      className="mt-3 rounded-2xl border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h4 id={`${id}-title`} className="text-sm font-semibold">
        {t`Make a tap link`}
      </h4>
      <label htmlFor={`${id}-label`} className="mt-3 block text-sm font-medium">
        {t`Label`}
      </label>
      <input
        id={`${id}-label`}
        type="text"
        autoComplete="off"
        maxLength={LABEL_MAX}
        value={label}
        placeholder={t`Gate B`}
        onInput={(event) => {
          setLabel(event.currentTarget.value);
        }}
        aria-describedby={`${id}-label-hint`}
        className={`mt-1.5 ${textInput}`}
      />
      <p id={`${id}-label-hint`} className="hint mt-1.5">
        {t`The door or desk it is for, up to ${labelMax} characters: it stands beside the member’s name in the log.`}
      </p>

      <fieldset className="mt-4 min-w-0">
        <legend className="text-sm font-medium">{t`Counters it may count`}</legend>
        <div className="mt-1.5 flex flex-col gap-2">
          <Radio
            name={`${id}-scope`}
            checked={scope === 'all'}
            onCheck={() => {
              setScope('all');
            }}
          >
            {t`Every counter, also those added later`}
          </Radio>
          <Radio
            name={`${id}-scope`}
            checked={scope === 'counters'}
            onCheck={() => {
              setScope('counters');
            }}
          >
            {t`Chosen counters`}
          </Radio>
          {scope === 'counters' && (
            <ul aria-label={t`Chosen counters`} className="tap-link-choices">
              {counters.map((counter) => (
                <li key={counter.id}>
                  <label className="flex items-start gap-2 text-sm">
                    <input
                      type="checkbox"
                      checked={chosen.has(counter.id)}
                      onChange={(event) => {
                        const on = event.currentTarget.checked;
                        setChosen((current) => {
                          const next = new Set(current);
                          if (on) next.add(counter.id);
                          else next.delete(counter.id);
                          return next;
                        });
                      }}
                      className={RADIO}
                    />
                    <span className="min-w-0 break-words">{counterName(counter)}</span>
                  </label>
                </li>
              ))}
            </ul>
          )}
          <Radio
            name={`${id}-scope`}
            checked={scope === 'section'}
            disabled={sections.length === 0}
            describedBy={sections.length === 0 ? `${id}-no-sections` : undefined}
            onCheck={() => {
              setScope('section');
            }}
          >
            {t`One section, also counters moved into it later`}
            {sections.length === 0 && (
              <span id={`${id}-no-sections`} className={`block ${mutedText}`}>
                {t`This group has no sections yet.`}
              </span>
            )}
          </Radio>
          {scope === 'section' && (
            <div className="ps-6">
              <label htmlFor={`${id}-section`} className="sr-only">
                {t`Section`}
              </label>
              <select
                id={`${id}-section`}
                value={section}
                onChange={(event) => {
                  setSection(event.currentTarget.value);
                }}
                className={textInput}
              >
                {sections.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
      </fieldset>

      <fieldset className="mt-4 min-w-0">
        <legend className="text-sm font-medium">{t`It may`}</legend>
        <div className="mt-1.5 flex flex-wrap gap-x-5 gap-y-2">
          {RIGHTS.map((choice) => (
            <Radio
              key={choice.value}
              name={`${id}-rights`}
              checked={rights === choice.value}
              onCheck={() => {
                setRights(choice.value);
              }}
            >
              {rightsSummary(choice.can)}
            </Radio>
          ))}
        </div>
      </fieldset>

      {full && (
        <p role="status" className={`mt-4 text-sm ${mutedText}`}>
          {plural(limit, {
            one: 'This group has # tap link, as many as it may have. Revoke it below to make another.',
            other:
              'This group has # tap links, as many as it may have. Revoke one below to make another.',
          })}
        </p>
      )}
      {error !== null && (
        <p role="alert" className="alert-error mt-4 px-3 py-2 break-words">
          {error}
        </p>
      )}
      <div className="share-actions">
        <button type="submit" disabled={busy || full} className={primaryButton}>
          {busy && <Loader className="size-4 animate-spin" />}
          {busy ? t`Making the link…` : t`Make tap link`}
        </button>
      </div>
    </form>
  );
}

const RADIO = 'mt-0.5 size-4 shrink-0 accent-indigo-600';

/** A radio button with its words beside it. */
function Radio({
  name,
  checked,
  disabled = false,
  describedBy,
  onCheck,
  children,
}: {
  name: string;
  checked: boolean;
  disabled?: boolean;
  describedBy?: string | undefined;
  onCheck: () => void;
  children: ReactNode;
}) {
  return (
    <label className="flex items-start gap-2 text-sm">
      <input
        type="radio"
        name={name}
        checked={checked}
        disabled={disabled}
        aria-describedby={describedBy}
        onChange={onCheck}
        className={RADIO}
      />
      <span>{children}</span>
    </label>
  );
}

/** The link just made: its address and QR code, this once. */
function CreatedLink({
  slug,
  link,
  counters,
  onDone,
}: {
  slug: string;
  link: TapLinkCreated;
  counters: readonly Counter[];
  onDone: () => void;
}) {
  const { t } = useLingui();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  const url = link.key === undefined ? null : window.location.origin + groupUrl(slug, link.key);
  const linkLabel = link.label;
  return (
    <section
      aria-labelledby={headingId}
      data-testid="tap-link-created"
      className="mt-3 rounded-2xl border border-emerald-300 p-4 dark:border-emerald-800"
    >
      <h4 ref={heading} id={headingId} tabIndex={-1} className="text-sm font-semibold break-words">
        {t`Tap link “${linkLabel}” is ready`}
      </h4>
      <p className={`mt-0.5 text-sm ${mutedText}`}>
        {scopeWords(link.scope, counters)} · {rightsSummary(link.can)}
      </p>
      {url === null ? (
        <p role="alert" className={`mt-3 text-sm ${errorText}`}>
          {t`This link was made before, and its address can be shown only once. Revoke it below and make a new one.`}
        </p>
      ) : (
        <>
          <QrCode text={url} label={t`QR code of the tap link ${linkLabel}`} />
          <p className="share-url">{url}</p>
          <p className="mt-3 rounded-xl bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-100">
            {t`This link is shown only this once: Tally keeps no copy of it. Copy it or let the volunteer scan the code now.`}
          </p>
        </>
      )}
      <div className="share-actions">
        {url !== null && <CopyButton text={url} label={t`Copy link`} Icon={Copy} />}
        <button type="button" onClick={onDone} className={secondaryButton}>
          {t`Make another`}
        </button>
      </div>
    </section>
  );
}

/** One of the group's links, with Revoke and its confirm step. */
function LinkRow({
  link,
  path,
  accessKey,
  counters,
  onRevoked,
}: {
  link: TapLinkView;
  path: string;
  accessKey: string;
  counters: readonly Counter[];
  onRevoked: () => void;
}) {
  const { t } = useLingui();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const now = Date.now();
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  const revoke = () => {
    setBusy(true);
    setError(null);
    request<undefined>('DELETE', `${path}/${encodeURIComponent(link.id)}`, {
      key: accessKey,
    }).then(onRevoked, (reason: unknown) => {
      // Already gone (revoked in another tab): it leaves the list all the same.
      if (reason instanceof ApiRequestError && reason.code === 'link_not_found') {
        onRevoked();
        return;
      }
      setBusy(false);
      setError(problem(reason, t`The tap link could not be revoked. Please try again.`));
    });
  };

  const tapCount = link.taps;
  const taps = plural(tapCount, { one: '# tap', other: '# taps' });
  const made = relativeTime(Date.parse(link.createdAt), now);
  const lastUsed = link.lastUsedAt === null ? null : relativeTime(Date.parse(link.lastUsedAt), now);
  const linkLabel = link.label;
  return (
    <li className="tap-link-row">
      <div className="flex flex-wrap items-start gap-x-3 gap-y-2">
        <div className="min-w-0 flex-1">
          <p className="text-sm font-semibold break-words">{link.label}</p>
          <p className={`text-xs ${mutedText}`}>
            {scopeWords(link.scope, counters)} · {rightsSummary(link.can)}
          </p>
          <p className={`text-xs ${mutedText}`}>
            {lastUsed === null
              ? t`Made ${made} · last used never · ${taps}`
              : t`Made ${made} · last used ${lastUsed} · ${taps}`}
          </p>
        </div>
        {!confirming && (
          <button
            type="button"
            aria-label={t`Revoke ${linkLabel}`}
            onClick={() => {
              setConfirming(true);
            }}
            className={`${secondaryButton} shrink-0 py-1.5`}
          >
            {t`Revoke`}
          </button>
        )}
      </div>
      {confirming && (
        <div className="mt-2">
          <p className="text-sm text-amber-800 dark:text-amber-200">
            {t`Revoke “${linkLabel}”? It stops working at once: pages open with it are closed, and taps waiting on its devices are not counted. Its taps stay in the log.`}
          </p>
          <ConfirmButtons
            label={t`Revoke now`}
            busy={busy}
            confirmRef={confirmButton}
            onConfirm={revoke}
            onCancel={() => {
              setConfirming(false);
            }}
          />
        </div>
      )}
      {error !== null && (
        <p role="alert" className={`mt-2 text-sm ${errorText}`}>
          {error}
        </p>
      )}
    </li>
  );
}
