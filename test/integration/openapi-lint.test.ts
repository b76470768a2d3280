/**
 * The OpenAPI document a real server serves passes Redocly's recommended ruleset, plus the rule
 * that every scalar property carries an example, and its examples look like real values rather
 * than the bounds of their types.
 */
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_VALUE, MIN_VALUE } from '../../src/shared/limits.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** One line per problem: severity, rule, where and what. */
const describeProblem = (problem: NormalizedProblem) =>
  `${problem.severity} ${problem.ruleId} ${problem.location.map((at) => at.pointer ?? '').join(' ')}: ${problem.message}`;

/** Every `examples` value in the document, with the JSON pointer of the schema that holds it. */
function examplesIn(node: unknown, at = '#'): { at: string; value: unknown }[] {
  if (typeof node !== 'object' || node === null) return [];
  const found: { at: string; value: unknown }[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'examples' && Array.isArray(value)) {
      found.push(...value.map((example: unknown) => ({ at, value: example })));
    } else {
      found.push(...examplesIn(value, `${at}/${key}`));
    }
  }
  return found;
}

describe('the served OpenAPI document, linted', () => {
  let server: TestServer;
  let text: string;
  beforeAll(async () => {
    server = await startServer({ logLevel: 'warn' });
    text = await (await fetch(`${server.url}/api/openapi.json`)).text();
  });
  afterAll(async () => {
    await server.close();
  });

  it("has no error or warning under Redocly's recommended rules and examples on every scalar property", async () => {
    const config = await createConfig({
      extends: ['recommended'],
      rules: {
        // Not in `recommended`: every scalar property shows a realistic example.
        'scalar-property-missing-example': 'warn',
        // The project declares no licence (package.json has none): the document does not make
        // one up.
        'info-license': 'off',
      },
    });
    const problems = await lintFromString({
      source: text,
      absoluteRef: `${server.url}/api/openapi.json`,
      config,
    });
    expect(problems.map(describeProblem)).toEqual([]);
  });

  it('gives realistic examples: none is an integer bound such as -9007199254740991', () => {
    const examples = examplesIn(JSON.parse(text));
    expect(examples.length).toBeGreaterThan(50);
    const bounds = examples.filter(({ value }) => value === MIN_VALUE || value === MAX_VALUE);
    expect(bounds).toEqual([]);
  });

  it('shows a counter with its steps at 1 and a value a group would have', () => {
    const document = JSON.parse(text) as {
      components: {
        schemas: Record<string, { properties: Record<string, { examples?: unknown[] }> }>;
      };
    };
    const counter = document.components.schemas.Counter?.properties;
    expect(counter?.incrementStep?.examples).toEqual([1]);
    expect(counter?.decrementStep?.examples).toEqual([1]);
    expect(counter?.value?.examples).toEqual([12]);
    expect(counter?.name?.examples).toEqual(['Coffees']);
  });
});
