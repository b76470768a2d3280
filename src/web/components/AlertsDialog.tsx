/**
 * The group's alerts (opened from Group settings, full access only): each rule in words with how
 * its destination is doing, Send test with its result, the delivery log and Delete; a form that
 * adds a rule (AlertForm.tsx); and this device's switch for Web Push notifications
 * (DeviceNotifications.tsx).
 *
 * Loaded only when a member opens it (the group screen's first load has a budget,
 * test/e2e/bundle.spec.ts). The server is the judge of every rule: the form refuses only what is
 * plainly missing and shows the server's messages as they come.
 */
import { useLingui } from '@lingui/react/macro';
import { useCallback, useEffect, useId, useRef, useState, type Ref } from 'react';
import type { AlertDelivery, AlertList, AlertRuleView } from '../../shared/alerts.js';
import type { Counter } from '../../shared/api.js';
import {
  attemptDetails,
  attemptTime,
  deleteAlert,
  deliveryKind,
  fetchAlerts,
  fetchDeliveries,
  limitWords,
  outcomeWords,
  problemWords,
  ruleWords,
  sendTestAlert,
  stateWords,
  testResultWords,
} from '../lib/alerts.js';
import type { GroupAuth } from '../lib/api.js';
import { errorText, iconButton, mutedText, primaryButton, secondaryButton } from '../lib/ui.js';
import { AddAlertForm } from './AlertForm.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { CopyButton } from './CopyButton.js';
import { DeviceNotifications } from './DeviceNotifications.js';
import { Dialog } from './Dialog.js';
import { Copy, Loader, Plus, Trash, X } from './icons/index.js';

export function AlertsDialog({
  auth,
  counters,
  onClose,
}: {
  auth: GroupAuth;
  /** The group's counters, to name them in rules and offer them in the form. */
  counters: readonly Counter[];
  onClose: () => void;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const [list, setList] = useState<AlertList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ value: string; rule: string } | null>(null);
  const [deleting, setDeleting] = useState<AlertRuleView | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const secretBox = useRef<HTMLDivElement>(null);
  // Bumped to give Add alert the focus once it is on screen again (after the form closes, or
  // the button focused before went away with its rule).
  const [focusAdd, setFocusAdd] = useState(0);

  const reload = useCallback(() => {
    fetchAlerts(auth).then(
      (answer) => {
        setList(answer);
        setLoadError(null);
      },
      (reason: unknown) => {
        setLoadError(problemWords(reason));
      },
    );
  }, [auth]);

  useEffect(() => {
    reload();
  }, [reload]);

  // Focus follows what the member did: to the secret that must be copied now, or back to Add
  // alert once the form is gone.
  useEffect(() => {
    if (secret !== null) secretBox.current?.focus();
  }, [secret]);
  useEffect(() => {
    if (focusAdd > 0) addButton.current?.focus();
  }, [focusAdd]);
  const returnToAdd = () => {
    setFocusAdd((count) => count + 1);
  };

  const describe = (rule: AlertRuleView) => ruleWords(rule, counters);
  const hasPushRule = list?.rules.some((rule) => rule.to.kind === 'push') ?? false;
  const deletingRule = deleting === null ? '' : describe(deleting);

  return (
    <>
      <Dialog
        labelledBy={titleId}
        describedBy={`${titleId}-about`}
        onClose={onClose}
        className="sm:max-w-2xl"
      >
        {(close) => (
          <>
            <div className="flex items-start justify-between gap-3">
              <h2 id={titleId} className="text-lg font-semibold">
                {t`Alerts`}
              </h2>
              <button
                type="button"
                aria-label={t`Close alerts`}
                title={t`Close`}
                onClick={close}
                className={`${iconButton} -mt-1.5 -me-2`}
              >
                <X className="size-5" />
              </button>
            </div>
            <p id={`${titleId}-about`} className={`mt-1 text-sm ${mutedText}`}>
              {t`Tell a webhook, Slack, Discord, ntfy or members’ devices when a counter crosses a line.`}
            </p>
            {list !== null && (
              <p className="hint mt-2" data-testid="alert-limits">
                {limitWords(list)}
              </p>
            )}

            {secret !== null && (
              <SecretNotice
                ref={secretBox}
                secret={secret.value}
                rule={secret.rule}
                onDismiss={() => {
                  setSecret(null);
                  returnToAdd();
                }}
              />
            )}

            <section aria-labelledby={`${titleId}-rules`} className="mt-5">
              <h3 id={`${titleId}-rules`} className="sr-only">
                {t`Alert rules`}
              </h3>
              {list === null ? (
                loadError === null ? (
                  <p role="status" className={`flex items-center gap-2 text-sm ${mutedText}`}>
                    <Loader className="size-4 animate-spin" />
                    {t`Loading alerts…`}
                  </p>
                ) : (
                  <div role="alert" className="alert-error flex flex-wrap items-center gap-3 p-3">
                    <span className="min-w-0 flex-1">{loadError}</span>
                    <button type="button" onClick={reload} className={secondaryButton}>
                      {t`Try again`}
                    </button>
                  </div>
                )
              ) : list.rules.length === 0 ? (
                <p
                  className={`rounded-xl border border-dashed border-zinc-300 px-4 py-6 text-center text-sm dark:border-zinc-700 ${mutedText}`}
                >
                  {t`No alerts yet.`}
                </p>
              ) : (
                <ul aria-labelledby={`${titleId}-rules`} className="flex flex-col gap-3">
                  {list.rules.map((rule) => (
                    <RuleItem
                      key={rule.id}
                      auth={auth}
                      rule={rule}
                      words={describe(rule)}
                      onTested={reload}
                      onDelete={() => {
                        setDeleteError(null);
                        setDeleting(rule);
                      }}
                    />
                  ))}
                </ul>
              )}
              {deleteError !== null && (
                <p role="alert" className={`mt-2 ${errorText}`}>
                  {deleteError}
                </p>
              )}
            </section>

            {adding ? (
              <AddAlertForm
                auth={auth}
                counters={counters}
                onAdded={(created) => {
                  setAdding(false);
                  reload();
                  if (created.secret === undefined) returnToAdd();
                  else setSecret({ value: created.secret, rule: describe(created.rule) });
                }}
                onCancel={() => {
                  setAdding(false);
                  returnToAdd();
                }}
              />
            ) : (
              <button
                ref={addButton}
                type="button"
                onClick={() => {
                  setAdding(true);
                }}
                className={`${secondaryButton} mt-4`}
              >
                <Plus className="size-4" />
                {t`Add alert`}
              </button>
            )}

            <DeviceNotifications auth={auth} hasPushRule={hasPushRule} onChanged={reload} />

            <div className="mt-6 flex justify-end">
              <button type="button" onClick={close} className={primaryButton}>
                {t`Done`}
              </button>
            </div>
          </>
        )}
      </Dialog>
      {deleting !== null && (
        <ConfirmDialog
          title={t`Delete this alert?`}
          message={t`${deletingRule}. No more alerts are sent for it.`}
          confirmLabel={t`Delete`}
          onConfirm={() => {
            deleteAlert(auth, deleting.id).then(
              () => {
                reload();
                returnToAdd();
              },
              (reason: unknown) => {
                setDeleteError(problemWords(reason));
              },
            );
          }}
          onClose={() => {
            setDeleting(null);
          }}
        />
      )}
    </>
  );
}

/** The signing secret of a new standard webhook: the server shows it this once. */
function SecretNotice({
  ref,
  secret,
  rule,
  onDismiss,
}: {
  ref: Ref<HTMLDivElement>;
  secret: string;
  rule: string;
  onDismiss: () => void;
}) {
  const { t } = useLingui();
  const headingId = useId();
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="region"
      aria-labelledby={headingId}
      className="mt-4 rounded-xl border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 outline-none dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <h3 id={headingId} className="font-semibold">
        {t`Signing secret`}
      </h3>
      <p className="mt-1 break-words">
        {t`For “${rule}”: the receiver checks each alert’s signature with it. Copy it now: it will not be shown again.`}
      </p>
      <p className="share-url" data-testid="alert-secret">
        {secret}
      </p>
      <div className="share-actions">
        <CopyButton text={secret} label={t`Copy secret`} Icon={Copy} />
        <button type="button" onClick={onDismiss} className={secondaryButton}>
          {t`I have copied it`}
        </button>
      </div>
    </div>
  );
}

const STATE_BADGE = {
  new: 'state-room',
  ok: 'state-goal',
  retrying: 'state-near',
  failing: 'state-full',
} as const;

type TestState =
  | { phase: 'idle' }
  | { phase: 'sending' }
  | { phase: 'done'; delivery: AlertDelivery }
  | { phase: 'failed'; message: string };

/** One rule: what it does, how its destination is doing, and its actions. */
function RuleItem({
  auth,
  rule,
  words,
  onTested,
  onDelete,
}: {
  auth: GroupAuth;
  rule: AlertRuleView;
  words: string;
  /** A test ended: the destination's state may have changed. */
  onTested: () => void;
  onDelete: () => void;
}) {
  const { t } = useLingui();
  const id = useId();
  const [test, setTest] = useState<TestState>({ phase: 'idle' });
  const [showDeliveries, setShowDeliveries] = useState(false);
  // Bumped after a test so an open log shows its attempt.
  const [logVersion, setLogVersion] = useState(0);
  const state = stateWords(rule.destination);
  const result = test.phase === 'done' ? testResultWords(test.delivery) : '';

  const sendTest = () => {
    setTest({ phase: 'sending' });
    sendTestAlert(auth, rule.id).then(
      (delivery) => {
        setTest({ phase: 'done', delivery });
        setLogVersion((version) => version + 1);
        onTested();
      },
      (reason: unknown) => {
        setTest({ phase: 'failed', message: problemWords(reason) });
      },
    );
  };

  return (
    <li aria-labelledby={`${id}-rule`} className="card min-w-0 p-3 sm:p-4">
      <p id={`${id}-rule`} className="font-medium break-words">
        {words}
      </p>
      <p className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
        <span className={`state-badge ${STATE_BADGE[rule.destination.state]}`}>{state.label}</span>
        <span className={`min-w-0 ${mutedText}`}>{state.detail}</span>
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <button
          type="button"
          disabled={test.phase === 'sending'}
          onClick={sendTest}
          className="chip-btn min-h-9 px-3"
        >
          {test.phase === 'sending' && <Loader className="size-3.5 animate-spin" />}
          {test.phase === 'sending' ? t`Sending test…` : t`Send test`}
        </button>
        <button
          type="button"
          aria-expanded={showDeliveries}
          aria-controls={`${id}-log`}
          onClick={() => {
            setShowDeliveries((shown) => !shown);
          }}
          className="chip-btn min-h-9 px-3"
        >
          {t`Deliveries`}
        </button>
        <button
          type="button"
          onClick={onDelete}
          aria-label={t`Delete alert: ${words}`}
          className="chip-btn ms-auto min-h-9 px-3 text-red-700 dark:text-red-300"
        >
          <Trash className="size-3.5" />
          {t`Delete`}
        </button>
      </div>
      <div role="status" className="text-sm">
        {test.phase === 'done' && (
          <p
            className={`mt-2 break-words ${test.delivery.outcome === 'delivered' ? 'text-emerald-800 dark:text-emerald-300' : errorText}`}
          >
            {t`Test: ${result}`}
          </p>
        )}
        {test.phase === 'failed' && (
          <p className={`mt-2 break-words ${errorText}`}>{test.message}</p>
        )}
      </div>
      <div id={`${id}-log`} hidden={!showDeliveries}>
        {showDeliveries && <DeliveryLog auth={auth} ruleId={rule.id} version={logVersion} />}
      </div>
    </li>
  );
}

/** The last attempts to reach the rule's destination, newest first. */
function DeliveryLog({
  auth,
  ruleId,
  version,
}: {
  auth: GroupAuth;
  ruleId: string;
  version: number;
}) {
  const { t } = useLingui();
  const [deliveries, setDeliveries] = useState<AlertDelivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    fetchDeliveries(auth, ruleId).then(
      (answer) => {
        if (cancelled) return;
        setDeliveries(answer);
        setError(null);
      },
      (reason: unknown) => {
        if (!cancelled) setError(problemWords(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [auth, ruleId, version]);

  if (error !== null) {
    return (
      <p role="alert" className={`mt-3 ${errorText}`}>
        {error}
      </p>
    );
  }
  if (deliveries === null) {
    return (
      <p role="status" className={`mt-3 flex items-center gap-2 text-sm ${mutedText}`}>
        <Loader className="size-4 animate-spin" />
        {t`Loading deliveries…`}
      </p>
    );
  }
  if (deliveries.length === 0) {
    return <p className={`mt-3 text-sm ${mutedText}`}>{t`Nothing sent yet.`}</p>;
  }
  return (
    <ol
      aria-label={t`Deliveries, newest first`}
      className="mt-3 max-h-72 divide-y divide-zinc-200 overflow-y-auto rounded-xl border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800"
    >
      {deliveries.map((delivery) => (
        <li key={delivery.id} className="px-3 py-2">
          <p className="flex flex-wrap items-baseline gap-x-2">
            <span
              className={
                delivery.outcome === 'delivered'
                  ? 'font-semibold text-emerald-800 dark:text-emerald-300'
                  : 'font-semibold text-red-700 dark:text-red-300'
              }
            >
              {outcomeWords(delivery)}
            </span>
            <span>{deliveryKind(delivery)}</span>
            <time dateTime={delivery.at} className={`ms-auto text-xs ${mutedText}`}>
              {attemptTime(delivery.at)}
            </time>
          </p>
          <p className={`text-xs ${mutedText}`}>{attemptDetails(delivery)}</p>
          {delivery.error !== null && (
            <p className={`mt-0.5 text-xs break-words ${errorText}`}>{delivery.error}</p>
          )}
        </li>
      ))}
    </ol>
  );
}
