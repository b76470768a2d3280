/**
 * The group screen's header: the picture and name of the group, this member and the connection,
 * and the group's actions (Activity, Share URL, QR code, Add Counter).
 */
import { useLingui } from '@lingui/react/macro';
import { lazy, Suspense, useState } from 'react';
import { changesWaiting } from '../../i18n/messages.js';
import { sanitizeText } from '../../../shared/rules.js';
import { Avatar } from '../../components/Avatar.js';
import { CopyButton } from '../../components/CopyButton.js';
import { loadExtras } from '../../components/CounterCard.js';
import { Plus, QrCode, Share, Sliders } from '../../components/icons/index.js';
import { InlineEdit } from '../../components/InlineEdit.js';
import { primaryButton, secondaryButton } from '../../lib/ui.js';
import type { GroupStore, GroupViewState } from '../../live/groupStore.js';
import { ConnectionBadge, GuestName, HereNow } from './HeaderStatus.js';

// The Activity button and its panel, the undo toast and Ctrl+Z: right after first paint.
const GroupTools = lazy(() => loadExtras().then((m) => ({ default: m.GroupTools })));

// The group's time zone, first day of the week and the way to its alerts, opened rarely.
const GroupSettingsDialog = lazy(() =>
  import('../../components/GroupSettingsDialog.js').then((m) => ({
    default: m.GroupSettingsDialog,
  })),
);

export function GroupHeader({
  store,
  state,
  readOnly,
  showPending,
  shareUrl,
  onEditPicture,
  onShowQrCode,
  onAddCounter,
}: {
  store: GroupStore;
  state: GroupViewState;
  readOnly: boolean;
  /** Say how many changes wait (they have waited long enough to be worth saying). */
  showPending: boolean;
  shareUrl: string;
  onEditPicture: () => void;
  onShowQrCode: () => void;
  onAddCounter: () => void;
}) {
  const { t } = useLingui();
  const { group } = state;
  const [editingSettings, setEditingSettings] = useState(false);
  return (
    <header className="group-header">
      <div className="flex min-w-0 flex-1 items-center gap-4">
        {readOnly ? (
          <Avatar
            url={group.profileImageUrl}
            name={group.displayName}
            size={64}
            className="shrink-0 shadow-sm"
          />
        ) : (
          <button
            type="button"
            aria-label={t`Change profile picture`}
            title={t`Change profile picture`}
            onClick={onEditPicture}
            className="group/avatar relative size-16 shrink-0 rounded-full"
          >
            <Avatar
              url={group.profileImageUrl}
              name={group.displayName}
              size={64}
              className="shadow-sm"
            />
          </button>
        )}
        <div className="min-w-0 flex-1">
          <h1 className="group-title">
            <InlineEdit
              value={group.displayName}
              label={t`Group name`}
              placeholder={t`Group Name`}
              readOnly={readOnly}
              onCommit={(text) => {
                const displayName = sanitizeText(text);
                // A blank display name is refused by the server: keep the current one.
                if (displayName !== '' && displayName !== group.displayName) {
                  store.updateGroup({ displayName });
                }
              }}
            />
          </h1>
          <div data-testid="header-status" className="header-status">
            <GuestName store={store} />
            {state.access === 'view' && (
              <span
                className="view-only-badge"
                title={t`This is a view-only link: it can see the group but not change it`}
              >
                {t`View only`}
              </span>
            )}
            {state.access === 'tap' && <span className="view-only-badge">{t`Tap link`}</span>}
            {/* 'Here now', then the connection, last but for what waits: one row whose size does
                not depend on who is here (.presence-row). */}
            <div className="presence-row">
              <HereNow members={state.members} count={state.here} />
              <ConnectionBadge status={state.status} />
            </div>
            {showPending && (
              <span role="status" className="offline-badge" data-testid="changes-waiting">
                {changesWaiting(state.pendingCount)}
              </span>
            )}
          </div>
        </div>
      </div>
      <div className="group-actions">
        <Suspense fallback={<span className="activity-btn" />}>
          <GroupTools store={store} access={state.access} />
        </Suspense>
        {/* A tap link is for its holder alone: it shares nothing. */}
        {state.access !== 'tap' && (
          <>
            <CopyButton
              text={shareUrl}
              label={t`Share URL`}
              Icon={Share}
              className="flex-auto sm:flex-none"
            />
            <button
              type="button"
              aria-label={t`Show QR code`}
              title={t`Show QR code`}
              aria-haspopup="dialog"
              onClick={onShowQrCode}
              className={`${secondaryButton} px-3`}
            >
              <QrCode className="size-4" />
            </button>
          </>
        )}
        {!readOnly && (
          <button
            type="button"
            aria-label={t`Group settings`}
            title={t`Group settings: time zone, first day of the week and alerts`}
            aria-haspopup="dialog"
            onClick={() => {
              setEditingSettings(true);
            }}
            className={`${secondaryButton} px-3`}
          >
            <Sliders className="size-4" />
          </button>
        )}
        {!readOnly && (
          <button
            type="button"
            onClick={onAddCounter}
            className={`${primaryButton} flex-auto sm:flex-none`}
          >
            <Plus className="size-4" />
            {t`Add Counter`}
          </button>
        )}
      </div>
      {editingSettings && (
        <Suspense fallback={null}>
          <GroupSettingsDialog
            group={group}
            auth={store}
            counters={state.counters ?? []}
            onSave={(patch) => {
              store.updateGroup(patch);
            }}
            onClose={() => {
              setEditingSettings(false);
            }}
          />
        </Suspense>
      )}
    </header>
  );
}
