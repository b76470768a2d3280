/**
 * How each queued operation goes to the server: one HTTP request, its id the Idempotency-Key. Each
 * call takes the operation itself: its fields are the request's.
 */
import {
  adjustCounter,
  createCounter,
  deleteCounter,
  reorderCounters,
  updateCounter,
  updateGroup,
  updateSection,
  type GroupAuth,
} from '../lib/api.js';
import type { Op, OpResult } from './ops.js';

export function sendOp(group: GroupAuth, op: Op): Promise<OpResult> {
  switch (op.kind) {
    case 'adjust':
      return adjustCounter(group, op);
    case 'patch':
      return updateCounter(group, op);
    case 'delete':
      return deleteCounter(group, op);
    case 'create':
      return createCounter(group, op);
    case 'group':
      return updateGroup(group, op);
    case 'reorder':
      return reorderCounters(group, op);
    case 'section':
      return updateSection(group, op);
  }
}
