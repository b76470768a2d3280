/**
 * Ids of things the server makes on a member's request (an alert rule, a tap link), derived
 * from the request's operation id when it has one: a retry with the same id names the same
 * thing, so its answer can be found instead of a second one made.
 */
import { createHash, randomUUID } from 'node:crypto';

/** A UUID-shaped id: SHA-256 of the group and operation id, or a random UUID without one. */
export function idForOperation(groupId: string, opId: string | undefined): string {
  if (opId === undefined) return randomUUID();
  const hash = createHash('sha256').update(`${groupId}\n${opId}`).digest('hex');
  return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20, 32)}`;
}
