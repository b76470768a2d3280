/**
 * Who may change an entry's note, and until when (ADR 36): the member who made the change, through
 * the same link, within NOTE_EDIT_WINDOW_MS of it. Member names are labels, not accounts (ADR 7):
 * this keeps one member from editing another's note by mistake; it proves nothing.
 */
import type { ActivityEntry } from '../../shared/activity.js';
import type { ErrorCode } from '../../shared/api.js';
import { NOTE_EDIT_WINDOW_MS } from '../../shared/limits.js';
import { NOTE_MESSAGES } from '../../shared/note-messages.js';

/** Why this member may not change this entry's note now (epoch ms), or null. */
export function noteEditRefusal(
  entry: ActivityEntry,
  by: { actor: string; linkId: string | null; now: number },
): { code: ErrorCode; message: string } | null {
  if (entry.kind === 'counter.reset') {
    return { code: 'validation_failed', message: NOTE_MESSAGES.cannotNoteReset };
  }
  if (entry.actor !== by.actor || (entry.link?.id ?? null) !== by.linkId) {
    return { code: 'not_your_entry', message: NOTE_MESSAGES.notYourEntry };
  }
  if (by.now - Date.parse(entry.at) > NOTE_EDIT_WINDOW_MS) {
    return {
      code: 'note_edit_closed',
      message: NOTE_MESSAGES.noteEditExpired(NOTE_EDIT_WINDOW_MS / 3_600_000),
    };
  }
  return null;
}
