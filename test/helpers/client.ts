/** A small HTTP client for the Tally API, as any program using it would write one. */
import { randomBytes } from 'node:crypto';
import type { Counter, GroupSnapshot } from '../../src/shared/api.js';

export const newKey = (bytes = 32) => randomBytes(bytes).toString('hex');

let groupCounter = 0;
/** A group name no other test uses. */
export const uniqueGroupName = (prefix = 'group') =>
  `${prefix}-${process.pid}-${++groupCounter}-${randomBytes(3).toString('hex')}`;

export interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = unknown>(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    headers?: Record<string, string>;
    rawBody?: string;
  } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  return {
    status: response.status,
    body: (text === '' ? undefined : JSON.parse(text)) as T,
    headers: response.headers,
  };
}

/** Creates a group with a fresh key and returns what a member needs. */
export async function createGroup(baseUrl: string, name = uniqueGroupName()) {
  const key = newKey();
  const answer = await call<GroupSnapshot>(baseUrl, 'POST', `/api/groups/${name}/join`, {
    body: { key },
  });
  if (answer.status !== 201) throw new Error(`join failed: ${answer.status}`);
  const group = answer.body.group;
  const base = `/api/groups/${group.name}`;
  return {
    key,
    group,
    base,
    async addCounter(fields: Record<string, unknown> = {}): Promise<Counter> {
      const created = await call<Counter>(baseUrl, 'POST', `${base}/counters`, {
        key,
        body: fields,
      });
      if (created.status !== 201) throw new Error(`create failed: ${created.status}`);
      return created.body;
    },
    async counters(): Promise<Counter[]> {
      return (await call<Counter[]>(baseUrl, 'GET', `${base}/counters`, { key })).body;
    },
  };
}
