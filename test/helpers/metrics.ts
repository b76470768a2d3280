/** Reads GET /metrics the way Prometheus does: the text format, one sample per line. */
import { expect } from 'vitest';
import type { TestServer } from './server.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name = '', labelText = '', value = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, label = '', raw = ''] of labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label] = raw.replace(/\\(.)/g, (_escape, char: string) =>
        char === 'n' ? '\n' : char,
      );
    }
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}

/** The value of one sample (0 when the series does not exist yet, as a counter starts). */
export function valueOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  );
  return found?.value ?? 0;
}

/** Scrapes a server with its metrics token; fails the test unless it answers 200. */
export async function scrape(server: TestServer, token: string): Promise<Sample[]> {
  const response = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return parseExposition(text);
}
