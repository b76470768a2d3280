/**
 * The server's refusals in the member's language: the server answers with a code and an English
 * message (the API's contract, ADR 35); in any other language the app shows its own words for the
 * code. English keeps the server's message, which can be more precise. Loaded with a language's
 * catalog (i18n.ts), so English pays nothing for it.
 */
import { t } from '@lingui/core/macro';
import type { RequestErrorCode } from '../lib/api.js';

export function errorText(code: RequestErrorCode): string {
  switch (code) {
    case 'invalid_group_name':
      return t`This group name cannot be used.`;
    case 'missing_key':
      return t`Missing group name or access key`;
    case 'invalid_key_format':
      return t`Invalid access key format`;
    case 'wrong_key':
      return t`Invalid access key for this group`;
    case 'group_not_found':
      return t`Group not found`;
    case 'counter_not_found':
      return t`Counter not found`;
    case 'validation_failed':
      return t`The request was not valid.`;
    case 'value_out_of_range':
      return t`Counter value out of range`;
    case 'payload_too_large':
      return t`Request body is too large`;
    case 'rate_limited':
      return t`Too many attempts with a wrong access key. Please try again later.`;
    case 'activity_not_found':
      return t`Change not found`;
    case 'already_undone':
      return t`This change was already undone`;
    case 'read_only':
      return t`This is a view-only link: it can see the group but not change it`;
    case 'not_found':
      return t`Not found`;
    case 'internal_error':
      return t`Something went wrong on our side. Please try again.`;
    case 'operation_id_reused':
      return t`This operation id was already used for a different change`;
    case 'not_your_entry':
      return t`Only the member who made this change can change its note.`;
    case 'note_edit_closed':
      return t`A note can be changed for 24 hours after the change.`;
    case 'import_invalid':
      return t`This file cannot be imported. It is not an export Tally reads, or it holds a mistake.`;
    case 'too_many_entries':
      return t`This import would pass the group's limit of activity entries. Nothing was imported.`;
    case 'too_many_counters':
      return t`This group has reached its limit of counters. Delete one to add another.`;
    case 'too_many_groups':
      return t`Too many new groups from this address. Please try again later.`;
    case 'too_many_connections':
      return t`Too many connections from this address. Close some tabs and try again.`;
    case 'too_many_reads':
      return t`Too many exports, histories and long activity pages from this address at once. Please try again later.`;
    case 'busy':
      return t`Tally is busy right now. Please try again in a moment.`;
    case 'storage_unavailable':
      return t`Tally cannot save changes right now. Please try again later.`;
    case 'request_timeout':
      return t`The request took too long to arrive`;
    case 'headers_too_large':
      return t`Request headers are too large`;
    case 'invalid_metrics_token':
      return t`Metrics need the operator's token`;
    case 'limit_reached':
      return t`Limit reached: this change would take a counter past its limit.`;
    case 'cannot_undo':
      return t`This change cannot be undone.`;
    case 'invalid_order':
      return t`The new order must list every one of the group's counters exactly once.`;
    case 'operation_expired':
      return t`This change was sent too long ago to be checked; nothing was changed.`;
    case 'alert_not_found':
      return t`Alert not found`;
    case 'too_many_alerts':
      return t`This group has reached its limit of alerts.`;
    case 'destination_refused':
      return t`This address cannot receive alerts.`;
    case 'tap_only':
      return t`A tap link can only count: it cannot change anything else.`;
    case 'link_not_found':
      return t`Tap link not found`;
    case 'too_many_links':
      return t`This group has reached its limit of tap links. Revoke one to make another.`;
    case 'network_error':
      return t`The server could not be reached. Check the connection and try again.`;
    case 'bad_response':
      return t`The server sent no data`;
  }
}
