/**
 * The share dialog: one link at a time, chosen with tabs: the link this tab holds (full access,
 * or view only in a view-only tab), the view-only link (a tab with the full key creates it or
 * turns it off), and the display's link. Each shows the same things in the same places: what the
 * link lets its holder do, its QR code (for a phone across the table), the address, then its
 * buttons in one row, Copy first. With full access the dialog also changes the access key (after
 * a confirm step: a new 64-hex key made here, POST /key, and the tab moves to the new link).
 *
 * A fourth tab, Tap links (./TapLinksPanel.tsx, its own chunk loaded when chosen), makes, lists
 * and revokes the group's tap links.
 *
 * The QR encoder (uqr) is imported only when the dialog opens: it is not part of any screen's
 * initial JavaScript (test/e2e/bundle.spec.ts).
 */
import { SOURCE_LOCALE } from '../i18n/locales.js';
import { i18n } from '@lingui/core';
import { t } from '@lingui/core/macro';
import {
  lazy,
  Suspense,
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from 'react';
import type { AccessLevel, Counter } from '../../shared/api.js';
import { ApiRequestError, groupPath, request } from '../lib/api.js';
import { generateAccessKey } from '../lib/ids.js';
import { displayUrl, groupUrl } from '../lib/router.js';
import { dangerButton, errorText, mutedText, primaryButton, secondaryButton } from '../lib/ui.js';
import { CopyButton } from './CopyButton.js';
import { Dialog } from './Dialog.js';
import { Copy, Loader } from './icons/index.js';

interface ShareLink {
  /** Section heading, e.g. 'Full access link'. */
  label: string;
  /** What the link lets its holder do. */
  description: string;
  url: string;
  /** Offer to open the link in a new tab (the display). */
  openLabel?: string;
  /** The copy button's label, when it is not 'Copy link'. */
  copyLabel?: string;
  /** The QR code's name, e.g. 'QR code of the full access link'. */
  qrLabel: string;
}

/** Modules of quiet zone around the code: the QR standard asks for 4, scanners rely on it. */
const QUIET_ZONE = 4;

type TabId = 'own' | 'view' | 'display' | 'tap';

const loadTapLinksPanel = () => import('./TapLinksPanel.js');
const TapLinksPanel = lazy(() => loadTapLinksPanel().then((m) => ({ default: m.TapLinksPanel })));

/** The link this tab can share itself: its own key's. */
function ownLink(slug: string, key: string, access: AccessLevel): ShareLink {
  return access === 'view'
    ? {
        ...viewOnlyLink(),
        url: window.location.origin + groupUrl(slug, key),
      }
    : {
        label: t`Full access link`,
        description: t`Anyone with this link can see and change the counters.`,
        qrLabel: t`QR code of the full access link`,
        url: window.location.origin + groupUrl(slug, key),
      };
}

/** The view-only link's words, wherever it is shown. */
function viewOnlyLink() {
  return {
    label: t`View-only link`,
    description: t`Anyone with this link can see the counters but not change them.`,
    qrLabel: t`QR code of the view-only link`,
  };
}

export function ShareDialog({
  slug,
  accessKey,
  access = 'full',
  counters = [],
  notice = null,
  onKeyChanging,
  onKeyChanged,
  onClose,
}: {
  slug: string;
  accessKey: string;
  access?: AccessLevel;
  /** The group's counters: a tap link may be made for some of them. */
  counters?: readonly Counter[];
  /** Shown above the links (e.g. after a key change). */
  notice?: string | null;
  /** This tab is about to change the key (true), or gave up (false). */
  onKeyChanging?: (changing: boolean) => void;
  /** The key was changed: this tab moves to the new one. */
  onKeyChanged?: (newKey: string) => void;
  onClose: () => void;
}) {
  const viewKeyState = useViewKey(slug, accessKey, access);
  const titleId = useId();
  const descriptionId = useId();
  const tabsId = useId();
  const [tab, setTab] = useState<TabId>('own');
  const tabs: { id: TabId; label: string }[] =
    access === 'full'
      ? [
          { id: 'own', label: t`Full access` },
          { id: 'view', label: t`View only` },
          { id: 'display', label: t`Display` },
          { id: 'tap', label: t`Tap links` },
        ]
      : [
          { id: 'own', label: t`View only` },
          { id: 'display', label: t`Display` },
        ];
  const panel = (id: TabId) => `${tabsId}-panel-${id}`;
  const tabRef = useRef<Partial<Record<TabId, HTMLButtonElement | null>>>({});

  // The tabs come first in the dialog, but the likeliest next step is copying the link: the
  // focus starts on Copy link (after showModal(), which focuses the first control).
  const firstCopy = useRef<HTMLDivElement>(null);
  useEffect(() => {
    firstCopy.current?.querySelector('button')?.focus();
  }, []);

  // Arrow keys, Home and End move between the tabs (the WAI-ARIA tabs pattern).
  const onTabKey = (event: KeyboardEvent) => {
    const at = tabs.findIndex((entry) => entry.id === tab);
    const to =
      event.key === 'ArrowRight'
        ? (at + 1) % tabs.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + tabs.length) % tabs.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? tabs.length - 1
              : null;
    if (to === null) return;
    event.preventDefault();
    const next = tabs[to]?.id ?? 'own';
    setTab(next);
    tabRef.current[next]?.focus();
  };

  return (
    <Dialog labelledBy={titleId} describedBy={descriptionId} onClose={onClose}>
      {(close) => (
        <>
          <h2 id={titleId} className="text-lg font-semibold">
            {t`Share this group`}
          </h2>
          <p id={descriptionId} className={`mt-1 text-sm ${mutedText}`}>
            {t`Scan the code with a phone camera, or copy the link.`}
          </p>
          {notice !== null && (
            <p
              role="status"
              className="mt-4 rounded-xl bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200"
            >
              {notice}
            </p>
          )}
          <div
            role="tablist"
            aria-label={t`Which link`}
            className={`share-tabs ${tabs.length > 3 ? 'share-tabs-four' : ''}`}
            onKeyDown={onTabKey}
          >
            {tabs.map((entry) => (
              <button
                key={entry.id}
                ref={(node) => {
                  tabRef.current[entry.id] = node;
                }}
                type="button"
                role="tab"
                id={`${tabsId}-tab-${entry.id}`}
                aria-selected={tab === entry.id}
                aria-controls={panel(entry.id)}
                tabIndex={tab === entry.id ? 0 : -1}
                onClick={() => {
                  setTab(entry.id);
                }}
                onPointerEnter={entry.id === 'tap' ? () => void loadTapLinksPanel() : undefined}
                className="share-tab"
              >
                {entry.label}
              </button>
            ))}
          </div>
          <div
            role="tabpanel"
            id={panel(tab)}
            aria-labelledby={`${tabsId}-tab-${tab}`}
            ref={firstCopy}
          >
            {tab === 'own' && <LinkSection link={ownLink(slug, accessKey, access)} />}
            {tab === 'view' && <ViewLinkSection slug={slug} state={viewKeyState} />}
            {tab === 'display' && (
              <LinkSection link={displayLink(slug, accessKey, viewKeyState.viewKey)} />
            )}
            {tab === 'tap' && (
              <Suspense
                fallback={
                  <p role="status" className={`mt-4 flex items-center gap-2 text-sm ${mutedText}`}>
                    <Loader className="size-4 animate-spin" />
                    {t`Loading tap links…`}
                  </p>
                }
              >
                <TapLinksPanel slug={slug} accessKey={accessKey} counters={counters} />
              </Suspense>
            )}
          </div>
          {access === 'full' ? (
            <ChangeKeySection
              slug={slug}
              accessKey={accessKey}
              onChanging={(changing) => onKeyChanging?.(changing)}
              onChanged={(newKey) => onKeyChanged?.(newKey)}
              done={<DoneButton onClick={close} />}
            />
          ) : (
            <div className="mt-6 flex justify-end">
              <DoneButton onClick={close} />
            </div>
          )}
        </>
      )}
    </Dialog>
  );
}

/** Closes the dialog: at the end of the last row of buttons, so the dialog stays short. */
function DoneButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" onClick={onClick} className={`${primaryButton} ms-auto`}>
      {t`Done`}
    </button>
  );
}

/**
 * One link: heading, what it does, the QR code (or what stands in its place), the address, and
 * the buttons in one row. Every tab is this, so each puts the same things in the same places.
 */
function LinkSection({
  link,
  code,
  actions,
}: {
  link: ShareLink;
  /** In place of the QR code and the address (a view-only link not created yet). */
  code?: ReactNode;
  /** After Copy link (Turn off). */
  actions?: ReactNode;
}) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="mt-4">
      <h3 id={headingId} className="text-sm font-semibold">
        {link.label}
      </h3>
      {/* Four lines kept on a phone, three wider, so the code stays in place from tab to tab. */}
      <p className={`mt-0.5 min-h-20 text-sm sm:min-h-15 ${mutedText}`}>{link.description}</p>
      {code ?? (
        <>
          <QrCode text={link.url} label={link.qrLabel} />
          <p className="share-url">{link.url}</p>
        </>
      )}
      <div className="share-actions">
        {code === undefined && (
          <CopyButton text={link.url} label={link.copyLabel ?? t`Copy link`} Icon={Copy} />
        )}
        {link.openLabel !== undefined && (
          <a href={link.url} target="_blank" rel="noopener" className={secondaryButton}>
            {link.openLabel}
          </a>
        )}
        {actions}
      </div>
    </section>
  );
}

function problem(error: unknown): string {
  if (error instanceof ApiRequestError) return error.serverMessage || error.message;
  return error instanceof Error ? error.message : String(error);
}

interface ViewKeyState {
  /** undefined: not known yet; null: there is none. */
  viewKey: string | null | undefined;
  busy: boolean;
  error: string | null;
  /** Creates the view-only link (POST) or turns it off (DELETE). */
  run: (method: 'POST' | 'DELETE') => void;
}

/**
 * The group's view-only key, for a tab with the full key (a view-only tab holds it already):
 * asked for once when the dialog opens, then created or turned off from the dialog.
 */
function useViewKey(slug: string, accessKey: string, access: AccessLevel): ViewKeyState {
  const [viewKey, setViewKey] = useState<string | null | undefined>(
    access === 'view' ? accessKey : undefined,
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const path = `${groupPath(slug)}/view-key`;

  useEffect(() => {
    if (access === 'view') return;
    let cancelled = false;
    request<{ viewKey: string | null }>('GET', path, { key: accessKey }).then(
      (answer) => {
        if (!cancelled) setViewKey(answer.viewKey);
      },
      (reason: unknown) => {
        if (cancelled) return;
        setViewKey(null);
        setError(problem(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [path, accessKey, access]);

  const run = (method: 'POST' | 'DELETE') => {
    setBusy(true);
    setError(null);
    request<{ viewKey: string } | undefined>(method, path, { key: accessKey }).then(
      (answer) => {
        setViewKey(method === 'POST' && answer ? answer.viewKey : null);
        setBusy(false);
      },
      (reason: unknown) => {
        setError(problem(reason));
        setBusy(false);
      },
    );
  };
  return { viewKey, busy, error, run };
}

/**
 * The display's link: with the view-only key when the group has one, so a screen in a public room
 * (and a photo of its QR code) cannot change anything; else with this tab's key.
 */
function displayLink(
  slug: string,
  accessKey: string,
  viewKey: string | null | undefined,
): ShareLink {
  const key = viewKey ?? accessKey;
  const viewOnly = key === viewKey;
  return {
    label: t`Display`,
    description: viewOnly
      ? t`Every counter in large type, for a projector or TV. This link has the view-only key: nothing can be changed with it.`
      : t`Every counter in large type, for a projector or TV. This link has the full key: create a view-only link to share one that cannot change anything.`,
    // A TV nobody touches shows the language of the member who shared it; English needs no `lang`.
    url:
      window.location.origin +
      displayUrl(slug, key, i18n.locale === SOURCE_LOCALE ? undefined : i18n.locale),
    openLabel: t`Open display`,
    copyLabel: t`Copy display link`,
    qrLabel: t`QR code of the display`,
  };
}

/**
 * The view-only link: off until created; one per group, the same every time it is asked for.
 * Laid out like every other link, with a placeholder where its code will be until it exists.
 */
function ViewLinkSection({
  slug,
  state: { viewKey, busy, error, run },
}: {
  slug: string;
  state: ViewKeyState;
}) {
  const failure = error !== null && (
    <p role="alert" className={`mt-2 text-sm ${errorText}`}>
      {error}
    </p>
  );
  if (viewKey) {
    return (
      <>
        <LinkSection
          link={{
            ...viewOnlyLink(),
            url: window.location.origin + groupUrl(slug, viewKey),
          }}
          actions={
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                run('DELETE');
              }}
              className={secondaryButton}
            >
              {busy && <Loader className="size-4 animate-spin" />}
              {t`Turn off`}
            </button>
          }
        />
        {failure}
      </>
    );
  }
  return (
    <>
      <LinkSection
        link={{
          ...viewOnlyLink(),
          description: t`A second link that shows the counters live but cannot change anything.`,
          url: '',
        }}
        code={
          <div className={`share-qr-placeholder ${mutedText}`}>
            {viewKey === undefined ? t`Looking for a view-only link…` : t`No view-only link yet.`}
          </div>
        }
        actions={
          <button
            type="button"
            disabled={busy || viewKey === undefined}
            onClick={() => {
              run('POST');
            }}
            className={secondaryButton}
          >
            {(busy || viewKey === undefined) && <Loader className="size-4 animate-spin" />}
            {t`Create view-only link`}
          </button>
        }
      />
      {failure}
    </>
  );
}

/** Replaces the group's access key: every old link (and view-only link) stops working. */
function ChangeKeySection({
  slug,
  accessKey,
  onChanging,
  onChanged,
  done,
}: {
  slug: string;
  accessKey: string;
  onChanging: (changing: boolean) => void;
  onChanged: (newKey: string) => void;
  /** The dialog's Done button, at the end of this section's row. */
  done: ReactNode;
}) {
  const [confirming, setConfirming] = useState(false);
  const [revokeTapLinks, setRevokeTapLinks] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();

  const change = () => {
    const key = generateAccessKey();
    setBusy(true);
    setError(null);
    onChanging(true);
    const body = revokeTapLinks ? { key, revokeTapLinks } : { key };
    request<unknown>('POST', `${groupPath(slug)}/key`, { key: accessKey, body }).then(
      () => {
        onChanged(key);
      },
      (reason: unknown) => {
        onChanging(false);
        setError(problem(reason));
        setBusy(false);
      },
    );
  };

  return (
    <section
      aria-labelledby={headingId}
      className="mt-5 border-t border-zinc-200 pt-4 dark:border-zinc-800"
    >
      <h3 id={headingId} className="text-sm font-semibold">
        {t`Access key`}
      </h3>
      {confirming ? (
        <>
          <p role="alert" className="mt-1 text-sm text-amber-800 dark:text-amber-200">
            {t`A new key replaces the current one. The current link and the view-only link stop working for everyone, and open pages using them are closed. Only people you send the new link to can get back in. Tap links keep working unless you revoke them too.`}
          </p>
          <label className="mt-3 flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              checked={revokeTapLinks}
              disabled={busy}
              onChange={(event) => {
                setRevokeTapLinks(event.currentTarget.checked);
              }}
              className="mt-0.5 size-4 shrink-0 accent-indigo-600"
            />
            <span>{t`Also revoke every tap link`}</span>
          </label>
          <ConfirmButtons
            label={t`Change key now`}
            busy={busy}
            onConfirm={change}
            onCancel={() => {
              setConfirming(false);
            }}
          >
            {done}
          </ConfirmButtons>
        </>
      ) : (
        <>
          <p className={`mt-0.5 text-sm ${mutedText}`}>
            {t`If a link reached the wrong people, replace the key.`}
          </p>
          <div className="share-actions">
            <button
              type="button"
              onClick={() => {
                setConfirming(true);
              }}
              className={secondaryButton}
            >
              {t`Change access key`}
            </button>
            {done}
          </div>
        </>
      )}
      {error !== null && (
        <p role="alert" className={`mt-2 text-sm ${errorText}`}>
          {error}
        </p>
      )}
    </section>
  );
}

/** The confirm step's row: the dangerous action, Cancel, and what else the row holds. */
export function ConfirmButtons({
  label,
  busy,
  onConfirm,
  onCancel,
  confirmRef,
  children,
}: {
  label: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  confirmRef?: Ref<HTMLButtonElement>;
  children?: ReactNode;
}) {
  return (
    <div className="share-actions">
      <button
        ref={confirmRef}
        type="button"
        disabled={busy}
        onClick={onConfirm}
        className={dangerButton}
      >
        {busy && <Loader className="size-4 animate-spin" />}
        {label}
      </button>
      <button type="button" disabled={busy} onClick={onCancel} className={secondaryButton}>
        {t`Cancel`}
      </button>
      {children}
    </div>
  );
}

type Matrix = { size: number; path: string };

/**
 * The code as SVG elements (the CSP has no data: images): one path of dark modules on a white
 * square with its quiet zone. Always dark on white, in both themes: inverted codes fail in many
 * scanners.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [matrix, setMatrix] = useState<Matrix | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let cancelled = false;
    import('uqr').then(
      ({ encode }) => {
        if (cancelled) return;
        // Medium error correction: survives a glare spot or a cracked screen; a group link
        // still fits in a version 6–7 code (41–45 modules).
        const { data, size } = encode(text, { ecc: 'M', border: 0 });
        let path = '';
        data.forEach((row, y) => {
          row.forEach((dark, x) => {
            if (dark) path += `M${x} ${y}h1v1h-1z`;
          });
        });
        setMatrix({ size, path });
      },
      () => {
        if (!cancelled) setFailed(true);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [text]);

  const box = 'share-qr';
  if (matrix === null) {
    return (
      <div
        role="status"
        className={`${box} flex items-center justify-center gap-2 border border-dashed border-zinc-300 text-sm dark:border-zinc-700 ${mutedText}`}
      >
        {failed ? (
          t`The QR code could not be loaded. Copy the link instead.`
        ) : (
          <>
            <Loader className="size-4 animate-spin" />
            {t`Making QR code…`}
          </>
        )}
      </div>
    );
  }
  const side = matrix.size + 2 * QUIET_ZONE;
  return (
    <svg
      role="img"
      aria-label={label}
      data-testid="share-qr"
      viewBox={`${-QUIET_ZONE} ${-QUIET_ZONE} ${side} ${side}`}
      shapeRendering="crispEdges"
      className={`${box} ring-1 ring-zinc-200 dark:ring-0`}
    >
      <rect x={-QUIET_ZONE} y={-QUIET_ZONE} width={side} height={side} fill="#fff" />
      <path d={matrix.path} fill="#000" />
    </svg>
  );
}
