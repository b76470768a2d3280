/**
 * The group screen's keys (src/web/lib/keys.ts): digits select a counter, +/− and the
 * clicker's Page Up/Down count on it, `?` lists the keys, `f` opens focus mode. The selection is
 * ringed and announced. The help overlay and focus mode are chunks of their own.
 */
import { t } from '@lingui/core/macro';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { DismissButton } from '../../components/ErrorBanner.js';
import { Eye } from '../../components/icons/index.js';
import type { Counter } from '../../../shared/api.js';
import { blockedReason } from '../../lib/capacity.js';
import { stopListening, takeEarlyKeys } from '../../lib/early-keys.js';
import { FOCUS_EVENT, keyAction, selectionAnnouncement, type KeyPress } from '../../lib/keys.js';
import { hasSections, layoutBlocks } from '../../lib/sections.js';
import { directionRefused, type TapRights } from '../../lib/tap-links.js';
import type { GroupStore, GroupViewState } from '../../live/groupStore.js';

const KeysHelp = lazy(() =>
  import('../../components/KeysHelp.js').then((m) => ({ default: m.KeysHelp })),
);
const loadFocusMode = () => import('./FocusMode.js');
const FocusMode = lazy(() => loadFocusMode().then((m) => ({ default: m.FocusMode })));

/** How long the view-only notice stays after the last key that asked to count, ms. */
const NOTICE_MS = 6_000;

const RING = ['ring-4', 'ring-indigo-500', 'ring-offset-2', 'dark:ring-offset-zinc-950'];

/** The counters in the order they are shown (sections gather theirs where the first one is). */
function shownOrder(state: GroupViewState): readonly Counter[] {
  const counters = state.counters ?? [];
  if (!hasSections(counters)) return counters;
  return layoutBlocks(counters, state.group.sectionLimits).flatMap((block) => block.counters);
}

/** A counting key pressed on a view-only link, said on screen: a card that does not count looks broken. */
const viewOnlyKeys = () =>
  t`This is a view-only link: it shows the counters but cannot count. Open the group with its full link to count.`;

export function KeyboardCounting({
  store,
  state,
  rights,
}: {
  store: GroupStore;
  state: GroupViewState;
  /** The directions this page may count in: none on a view-only link, maybe one on a tap link. */
  rights: TapRights;
}) {
  const readOnly = !rights.increment && !rights.decrement;
  const [selected, setSelected] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [helpOpen, setHelpOpen] = useState(false);
  const [focusId, setFocusId] = useState<string | null>(null);
  /** Bumped by each counting key this page may not use; 0 while no notice shows. */
  const [viewOnlyNotice, setViewOnlyNotice] = useState(0);
  /** What the notice says: view-only, or the one direction a tap link has. */
  const [noticeText, setNoticeText] = useState<string>(viewOnlyKeys);
  // The handler reads the latest of these without being added again on every change.
  const latest = useRef({ state, rights, readOnly, selected, focusId, helpOpen });
  latest.current = { state, rights, readOnly, selected, focusId, helpOpen };

  useEffect(() => {
    /** A key press; `preventDefault` is a no-op for a key held from before this listened. */
    const onPress = (event: KeyPress & { preventDefault: () => void }) => {
      const now = latest.current;
      const action = keyAction(event);
      if (action === null) return;
      // Another dialog (settings, share, help) has the keys; focus mode keeps +/− only. Focus
      // mode is over once its dialog is closed: the browser may handle a key pressed right after
      // Escape before the dialog's close event, which is what tells React.
      const focusDialog = document.querySelector('dialog[data-focus-mode]');
      const inFocus =
        now.focusId !== null && (focusDialog === null || focusDialog.hasAttribute('open'));
      if (!inFocus && document.querySelector('dialog[open]') !== null) return;
      if (inFocus && action.kind !== 'adjust') return;
      const counters = shownOrder(now.state);
      const current = counters.find((c) => c.id === now.selected) ?? null;
      switch (action.kind) {
        case 'select': {
          const counter = counters[action.position - 1];
          if (!counter) return;
          event.preventDefault();
          // Read by a next key before React renders again (held keys are replayed at once).
          latest.current.selected = counter.id;
          setSelected(counter.id);
          setAnnouncement(selectionAnnouncement(counter.name, counter.value));
          document.getElementById(`counter-${counter.id}`)?.scrollIntoView({ block: 'nearest' });
          return;
        }
        case 'adjust': {
          if (!now.rights[action.direction]) {
            // The arrows and Page keys scroll the page until a counter is selected; + and − do not.
            if (current === null && event.key.length > 1) return;
            if (current !== null) event.preventDefault();
            setNoticeText(now.readOnly ? viewOnlyKeys() : directionRefused(action.direction));
            setViewOnlyNotice((n) => n + 1);
            return;
          }
          if (current === null) return;
          event.preventDefault();
          const reason = blockedReason(current, action.direction);
          if (reason !== null) {
            setAnnouncement(reason);
            return;
          }
          store.adjust(current.id, action.direction);
          return;
        }
        case 'help':
          event.preventDefault();
          setHelpOpen(true);
          return;
        case 'focus':
          if (current === null) return;
          event.preventDefault();
          if (now.readOnly) {
            setNoticeText(viewOnlyKeys());
            setViewOnlyNotice((n) => n + 1);
          } else setFocusId(current.id);
          return;
      }
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      onPress({
        key: event.key,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        target: event.target instanceof HTMLElement ? event.target : null,
        preventDefault: () => {
          event.preventDefault();
        },
      });
    };
    const onFocusRequest = (event: Event) => {
      const id = (event as CustomEvent<string>).detail;
      setSelected(id);
      setFocusId(id);
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener(FOCUS_EVENT, onFocusRequest);
    for (const press of takeEarlyKeys()) onPress({ ...press, preventDefault: () => undefined });
    return () => {
      stopListening();
      window.removeEventListener('keydown', onKey);
      window.removeEventListener(FOCUS_EVENT, onFocusRequest);
    };
  }, [store]);

  // The ring on the selected card (the card itself stays unaware of the selection).
  useEffect(() => {
    if (selected === null) return;
    const element = document.getElementById(`counter-${selected}`);
    if (!element) return;
    element.classList.add(...RING);
    element.setAttribute('data-key-selected', '');
    return () => {
      element.classList.remove(...RING);
      element.removeAttribute('data-key-selected');
    };
  }, [selected, state.counters]);

  // The notice goes away by itself a while after the last key that asked to count.
  useEffect(() => {
    if (viewOnlyNotice === 0) return;
    const timer = window.setTimeout(() => {
      setViewOnlyNotice(0);
    }, NOTICE_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [viewOnlyNotice]);

  return (
    <>
      <p role="status" aria-live="polite" className="sr-only" data-testid="key-announcer">
        {announcement}
      </p>
      <div role="status" aria-live="polite">
        {viewOnlyNotice > 0 && (
          <div className="fixed inset-x-4 bottom-4 z-40 mx-auto flex max-w-md items-start gap-3 rounded-xl border border-sky-200 bg-sky-50 py-3 pe-2 ps-4 text-sm text-sky-950 shadow-lg dark:border-sky-800 dark:bg-sky-950 dark:text-sky-50">
            <Eye className="mt-0.5 size-4 shrink-0" />
            <p className="min-w-0 flex-1">{noticeText}</p>
            <DismissButton
              label={t`Close this notice`}
              onClick={() => {
                setViewOnlyNotice(0);
              }}
              className="-my-1 inline-flex size-8 shrink-0 items-center justify-center rounded-lg hover:bg-sky-100 dark:hover:bg-sky-900"
            />
          </div>
        )}
      </div>
      {helpOpen && (
        <Suspense fallback={null}>
          <KeysHelp
            readOnly={readOnly}
            onClose={() => {
              setHelpOpen(false);
            }}
          />
        </Suspense>
      )}
      {focusId !== null && (
        <Suspense fallback={null}>
          <FocusMode
            store={store}
            counterId={focusId}
            rights={rights}
            onClose={() => {
              setFocusId(null);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
