/**
 * Checks real answers against Tally's OpenAPI document (GET /api/openapi.json): the status must
 * be documented for the operation, and the body must validate (JSON Schema 2020-12, ajv) against
 * the schema documented for that status and content type. Also lists the routes a real server
 * registers, from Fastify's own route tree.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from '../../src/server/routes/openapi.js';

/** The document's id inside ajv: schemas are addressed by JSON pointer into it. */
const DOCUMENT_ID = 'https://tally.invalid/openapi.json';

export interface DocumentedOperation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: unknown }>; headers?: object }
  >;
}

export interface Located {
  method: string;
  /** The OpenAPI path template, e.g. `/api/groups/{name}`. */
  template: string;
  operation: DocumentedOperation;
}

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  readonly operations: Located[] = [];

  constructor(readonly document: OpenApiDocument) {
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        this.operations.push({
          method: method.toUpperCase(),
          template,
          operation: operation as unknown as DocumentedOperation,
        });
      }
    }
  }

  byId(operationId: string): Located {
    const found = this.operations.find((o) => o.operation.operationId === operationId);
    if (!found) throw new Error(`no documented operation ${operationId}`);
    return found;
  }

  /** A validator of the schema at a JSON pointer into the document. */
  validatorAt(...path: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer(...path)}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /** Problems with one real answer of an operation; empty when it matches the document. */
  problemsOf(
    located: Located,
    answer: { status: number; contentType: string | null; text: string },
  ): string[] {
    const { method, template, operation } = located;
    const documented = operation.responses[String(answer.status)];
    const where = `${method} ${template} → ${answer.status}`;
    if (!documented) return [`${where}: status not documented`];
    if (!documented.content) {
      return answer.text === '' ? [] : [`${where}: documented without a body, got ${answer.text}`];
    }
    const mediaType = (answer.contentType ?? '').split(';')[0]?.trim() ?? '';
    if (!(mediaType in documented.content)) {
      return [`${where}: content type ${mediaType} not documented`];
    }
    let body: unknown = answer.text;
    if (mediaType === 'application/json') {
      try {
        body = JSON.parse(answer.text);
      } catch {
        return [`${where}: not JSON: ${answer.text.slice(0, 200)}`];
      }
    }
    const validate = this.validatorAt(
      'paths',
      template,
      method.toLowerCase(),
      'responses',
      String(answer.status),
      'content',
      mediaType,
      'schema',
    );
    if (validate(body)) return [];
    return [
      `${where} (${mediaType}): ${this.ajv.errorsText(validate.errors)}; body ${answer.text.slice(0, 300)}`,
    ];
  }

  /** Problems with a JSON request body the test sends, against the documented request body. */
  requestProblemsOf(located: Located, body: unknown): string[] {
    const { method, template, operation } = located;
    if (!operation.requestBody) return [`${method} ${template}: no request body documented`];
    const validate = this.validatorAt(
      'paths',
      template,
      method.toLowerCase(),
      'requestBody',
      'content',
      'application/json',
      'schema',
    );
    return validate(body)
      ? []
      : [`${method} ${template} request: ${this.ajv.errorsText(validate.errors)}`];
  }
}

/**
 * Every route the server registers, as `METHOD /path` with Fastify's `:param` syntax, read from
 * `printRoutes` (Fastify has no public route list once started). Each tree line is a path piece,
 * indented under its parent, followed by its methods.
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  /** The full path of the piece last seen at each indentation. */
  const prefixes: { indent: number; path: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([\s│├└─]*)(\S+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const [, tree = '', piece = '', methods] = match;
    const indent = tree.length;
    while (prefixes.length > 0 && (prefixes[prefixes.length - 1]?.indent ?? 0) >= indent)
      prefixes.pop();
    const path = (prefixes[prefixes.length - 1]?.path ?? '') + piece;
    prefixes.push({ indent, path });
    for (const method of methods?.split(',') ?? []) routes.push(`${method.trim()} ${path}`);
  }
  return routes;
}
