/** A member's name as the app shows it. */
import { t } from '@lingui/core/macro';
import { UNKNOWN_MEMBER } from '../../shared/limits.js';

/**
 * The server stores UNKNOWN_MEMBER ("Someone") for a change whose member gave no name: each
 * language words it its own way. Any other name is shown as it was given.
 */
export function memberName(actor: string): string {
  return actor === UNKNOWN_MEMBER ? t`Someone` : actor;
}
