/** How each queued operation goes to the server: one HTTP request, its id the Idempotency-Key. */
import type { CounterPatchInput, GroupPatchInput } from '../../shared/api.js';
import {
  adjustCounter,
  createCounter,
  deleteCounter,
  reorderCounters,
  updateCounter,
  updateGroup,
  updateSection,
} from '../lib/api.js';
import type { Op, OpResult } from './ops.js';

export function sendOp(slug: string, key: string, op: Op): Promise<OpResult> {
  switch (op.kind) {
    case 'adjust':
      return adjustCounter(slug, key, op.counterId, op.direction, op.times, op.opId);
    case 'patch':
      return updateCounter(slug, key, op.counterId, op.patch satisfies CounterPatchInput, op.opId);
    case 'delete':
      return deleteCounter(slug, key, op.counterId, op.opId);
    case 'create':
      return createCounter(slug, key, op.opId);
    case 'group':
      return updateGroup(slug, key, op.patch satisfies GroupPatchInput, op.opId);
    case 'reorder':
      return reorderCounters(slug, key, op.counterIds, op.opId);
    case 'section':
      return updateSection(slug, key, op.section, op.max, op.opId);
  }
}
