/**
 * Messages that several parts of the web app show, each worded once. The server's English for the
 * same cases is in src/shared/messages.ts, which stays out of the browser: a unit test
 * (test/unit/i18n-english.test.ts) holds the two word for word.
 */
import { plural, t } from '@lingui/core/macro';
import type { GroupNameProblem } from '../../shared/rules.js';

/** Why a typed or linked group name, or an image URL, is refused. */
export function problemText(problem: GroupNameProblem | 'invalidUrl'): string {
  switch (problem) {
    case 'emptyGroupName':
      return t`Please enter a group name.`;
    case 'groupNameNeedsAlnum':
      return t`Group name must contain at least one letter or number`;
    case 'groupNameTooLong':
      return t`Group name must be at most 100 characters`;
    case 'invalidUrl':
      return t`Please enter a valid URL`;
  }
}

export const changesWaiting = (count: number) =>
  plural(count, { one: '# change waiting', other: '# changes waiting' });

export const missingNameOrKey = () => t`Missing group name or access key`;
export const invalidKeyFormat = () => t`Invalid access key format`;
export const accessDenied = () => t`Access denied`;
export const loadingGroup = () => t`Loading group...`;
export const counterImageFailed = () =>
  t`Failed to load image - URL may be invalid or image may not exist`;
export const notAnInteger = () => t`Value must be a whole number`;
