/**
 * The share dialog: the link this tab holds as a QR code (for a phone across the table) and as
 * text with a copy button. With full access it also manages the view-only link (create: its own
 * QR code and copy button; turn off) and changes the access key (after a confirm step: a new
 * 64-hex key made here, POST /key, and the tab moves to the new link). A view-only tab shows its
 * own (view-only) link only.
 *
 * The QR encoder (uqr) is imported only when the dialog opens: it is not part of any screen's
 * initial JavaScript (issue 5's 80 KB budget).
 */
import { useEffect, useId, useState } from 'react';
import type { AccessLevel } from '../../shared/api.js';
import { ApiRequestError, groupPath, request } from '../lib/api.js';
import { generateAccessKey } from '../lib/ids.js';
import { displayUrl, groupUrl } from '../lib/router.js';
import { dangerButton, errorText, mutedText, primaryButton, secondaryButton } from '../lib/ui.js';
import { CopyButton } from './CopyButton.js';
import { Dialog } from './Dialog.js';
import { Loader, icon } from './icons.js';

const Copy = icon('M8 8h12v12H8zM16 8V4H4v12h4');

interface ShareLink {
  /** Stable id, e.g. 'full' (later 'view'). */
  id: string;
  /** Section heading, e.g. 'Full access link'. */
  label: string;
  /** What the link lets its holder do. */
  description: string;
  url: string;
  /** Offer to open the link in a new tab (the display). */
  openLabel?: string;
  /** The copy button's label, when the dialog has more than one 'Copy link'. */
  copyLabel?: string;
}

/** Modules of quiet zone around the code: the QR standard asks for 4, scanners rely on it. */
const QUIET_ZONE = 4;

/** The link this tab can share itself: its own key's. */
function groupLinks(slug: string, key: string, access: AccessLevel): ShareLink[] {
  if (access === 'view') {
    return [
      {
        id: 'view',
        label: 'View-only link',
        description: 'Anyone with this link can see the counters but not change them.',
        url: window.location.origin + groupUrl(slug, key),
      },
    ];
  }
  return [
    {
      id: 'full',
      label: 'Full access link',
      description: 'Anyone with this link can see and change the counters.',
      url: window.location.origin + groupUrl(slug, key),
    },
  ];
}

export function ShareDialog({
  slug,
  accessKey,
  access = 'full',
  notice = null,
  onKeyChanging,
  onKeyChanged,
  onClose,
}: {
  slug: string;
  accessKey: string;
  access?: AccessLevel;
  /** Shown above the links (e.g. after a key change). */
  notice?: string | null;
  /** This tab is about to change the key (true), or gave up (false). */
  onKeyChanging?: (changing: boolean) => void;
  /** The key was changed: this tab moves to the new one. */
  onKeyChanged?: (newKey: string) => void;
  onClose: () => void;
}) {
  const links = groupLinks(slug, accessKey, access);
  const viewKeyState = useViewKey(slug, accessKey, access);
  const titleId = useId();
  const descriptionId = useId();
  return (
    <Dialog labelledBy={titleId} describedBy={descriptionId} onClose={onClose}>
      {(close) => (
        <>
          <h2 id={titleId} className="text-lg font-semibold">
            Share this group
          </h2>
          <p id={descriptionId} className={`mt-1 text-sm ${mutedText}`}>
            Scan the code with a phone camera, or copy the link.
          </p>
          {/* showModal() focuses the first control: the first link's Copy link button. */}
          {notice !== null && (
            <p
              role="status"
              className="mt-4 rounded-xl bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200"
            >
              {notice}
            </p>
          )}
          {links.map((link) => (
            <LinkSection key={link.id} link={link} />
          ))}
          <LinkSection link={displayLink(slug, accessKey, viewKeyState.viewKey)} />
          {access === 'full' && (
            <>
              <ViewLinkSection slug={slug} state={viewKeyState} />
              <ChangeKeySection
                slug={slug}
                accessKey={accessKey}
                onChanging={(changing) => onKeyChanging?.(changing)}
                onChanged={(newKey) => onKeyChanged?.(newKey)}
              />
            </>
          )}
          <div className="mt-6 flex justify-end">
            <button type="button" onClick={close} className={`${primaryButton} w-full sm:w-auto`}>
              Done
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}

function LinkSection({ link }: { link: ShareLink }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="mt-5">
      <h3 id={headingId} className="text-sm font-semibold">
        {link.label}
      </h3>
      <p className={`mt-0.5 text-sm ${mutedText}`}>{link.description}</p>
      <QrCode text={link.url} label={`QR code of the ${link.label.toLowerCase()}`} />
      <p className="mt-4 rounded-xl border border-zinc-200 bg-zinc-50 px-3 py-2 font-mono text-xs leading-5 break-all text-zinc-800 select-all dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200">
        {link.url}
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <CopyButton text={link.url} label={link.copyLabel ?? 'Copy link'} Icon={Copy} />
        {link.openLabel !== undefined && (
          <a href={link.url} target="_blank" rel="noopener" className={secondaryButton}>
            {link.openLabel}
          </a>
        )}
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
    id: 'display',
    label: 'Display',
    description: viewOnly
      ? 'Show every counter in large type on a projector or TV. This link has the view-only key: nothing can be changed with it.'
      : 'Show every counter in large type on a projector or TV. Nothing can be changed there, but this link has the full key: create a view-only link below to share one that cannot change anything.',
    url: window.location.origin + displayUrl(slug, key),
    openLabel: 'Open display',
    copyLabel: 'Copy display link',
  };
}

/** The view-only link: off until created; one per group, the same every time it is asked for. */
function ViewLinkSection({
  slug,
  state: { viewKey, busy, error, run },
}: {
  slug: string;
  state: ViewKeyState;
}) {
  const headingId = useId();

  if (viewKey) {
    return (
      <div className="mt-6 border-t border-zinc-200 pt-1 dark:border-zinc-800">
        <LinkSection
          link={{
            id: 'view',
            label: 'View-only link',
            description: 'Anyone with this link can see the counters but not change them.',
            url: window.location.origin + groupUrl(slug, viewKey),
          }}
        />
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            run('DELETE');
          }}
          className={`${secondaryButton} mt-2`}
        >
          {busy && <Loader className="size-4 animate-spin" />}
          Turn off
        </button>
        {error !== null && (
          <p role="alert" className={`mt-2 text-sm ${errorText}`}>
            {error}
          </p>
        )}
      </div>
    );
  }
  return (
    <section
      aria-labelledby={headingId}
      className="mt-6 border-t border-zinc-200 pt-5 dark:border-zinc-800"
    >
      <h3 id={headingId} className="text-sm font-semibold">
        View-only link
      </h3>
      <p className={`mt-0.5 text-sm ${mutedText}`}>
        A second link that shows the counters live but cannot change anything.
      </p>
      <button
        type="button"
        disabled={busy || viewKey === undefined}
        onClick={() => {
          run('POST');
        }}
        className={`${secondaryButton} mt-3`}
      >
        {(busy || viewKey === undefined) && <Loader className="size-4 animate-spin" />}
        Create view-only link
      </button>
      {error !== null && (
        <p role="alert" className={`mt-2 text-sm ${errorText}`}>
          {error}
        </p>
      )}
    </section>
  );
}

/** Replaces the group's access key: every old link (and view-only link) stops working. */
function ChangeKeySection({
  slug,
  accessKey,
  onChanging,
  onChanged,
}: {
  slug: string;
  accessKey: string;
  onChanging: (changing: boolean) => void;
  onChanged: (newKey: string) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();

  const change = () => {
    const key = generateAccessKey();
    setBusy(true);
    setError(null);
    onChanging(true);
    request<unknown>('POST', `${groupPath(slug)}/key`, { key: accessKey, body: { key } }).then(
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
      className="mt-6 border-t border-zinc-200 pt-5 dark:border-zinc-800"
    >
      <h3 id={headingId} className="text-sm font-semibold">
        Access key
      </h3>
      {confirming ? (
        <>
          <p role="alert" className="mt-1 text-sm text-amber-800 dark:text-amber-200">
            A new key replaces the current one. The current link and the view-only link stop working
            for everyone, and open pages using them are closed. Only people you send the new link to
            can get back in.
          </p>
          <div className="mt-3 flex flex-col-reverse gap-2 sm:flex-row">
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setConfirming(false);
              }}
              className={secondaryButton}
            >
              Cancel
            </button>
            <button type="button" disabled={busy} onClick={change} className={dangerButton}>
              {busy && <Loader className="size-4 animate-spin" />}
              Change key now
            </button>
          </div>
        </>
      ) : (
        <>
          <p className={`mt-0.5 text-sm ${mutedText}`}>
            If a link reached the wrong people, replace the key.
          </p>
          <button
            type="button"
            onClick={() => {
              setConfirming(true);
            }}
            className={`${secondaryButton} mt-3`}
          >
            Change access key
          </button>
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

type Matrix = { size: number; path: string };

/**
 * The code as SVG elements (the CSP has no data: images): one path of dark modules on a white
 * square with its quiet zone. Always dark on white, in both themes: inverted codes fail in many
 * scanners.
 */
function QrCode({ text, label }: { text: string; label: string }) {
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

  const box = 'mx-auto mt-4 block aspect-square w-full max-w-60 rounded-xl';
  if (matrix === null) {
    return (
      <div
        role="status"
        className={`${box} flex items-center justify-center gap-2 border border-dashed border-zinc-300 text-sm dark:border-zinc-700 ${mutedText}`}
      >
        {failed ? (
          'The QR code could not be loaded. Copy the link instead.'
        ) : (
          <>
            <Loader className="size-4 animate-spin" />
            Making QR code…
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
