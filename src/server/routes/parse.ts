/** The edge: turns raw request parts into validated values or a 400 with a clear message. */
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { OperationIdSchema } from '../../shared/api.js';
import { TEXT_MAX_LENGTH } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError } from '../errors.js';
import type { MutationOrigin } from '../core/service.js';
import { refuseNulInMemberName } from '../security/nul.js';

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.');
  const message = issue ? messageOf(issue) : MESSAGES.invalidBody;
  throw new DomainError('validation_failed', field ? `${field}: ${message}` : message);
}

/** Like parseWith, but keeps SPEC's exact sentence (no field prefix) for single-field rules. */
export function parseExact<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new DomainError('validation_failed', issue ? messageOf(issue) : MESSAGES.invalidBody);
}

/** Longest unknown field name an error message repeats: shorter than any access key (16). */
const ECHOED_NAME_MAX = 15;

/**
 * The issue's message, except that unknown field names are named only when short: a client that
 * put its key in a field name must not get it back in an error body.
 */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.keys.some((k) => k.length > ECHOED_NAME_MAX)) {
    return 'Unrecognized field';
  }
  return issue.message;
}

/** `Authorization: Bearer <key>`; undefined when absent or another scheme. */
export function bearerKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S*)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

/** A client operation id from the Idempotency-Key header, or the body's opId field. */
export function operationId(request: FastifyRequest, bodyOpId?: string): string | undefined {
  const header = request.headers['idempotency-key'];
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) return bodyOpId;
  return parseExact(OperationIdSchema, raw);
}

/** Longest raw Tally-Member header, characters (percent-encoding triples each byte). */
export const MEMBER_HEADER_MAX = 9 * TEXT_MAX_LENGTH;

/**
 * The member's display name from `Tally-Member` (percent-encoded UTF-8, as headers carry only
 * ASCII safely); undefined when absent. It labels activity entries and proves nothing.
 */
export function memberHeader(request: FastifyRequest): string | undefined {
  const header = request.headers['tally-member'];
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    throw new DomainError('validation_failed', MESSAGES.invalidMemberName);
  }
  if (raw.length > MEMBER_HEADER_MAX || name.length > TEXT_MAX_LENGTH) {
    throw new DomainError('validation_failed', MESSAGES.invalidMemberName);
  }
  refuseNulInMemberName(name);
  return name;
}

/** Where a REST mutation comes from: its operation id (header, else `bodyOpId`) and its member. */
export function originOf(request: FastifyRequest, bodyOpId?: string): MutationOrigin {
  return { opId: operationId(request, bodyOpId), actor: memberHeader(request), client: request.ip };
}
