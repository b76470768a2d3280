// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import lingui from 'eslint-plugin-lingui';
import tseslint from 'typescript-eslint';

/**
 * An import boundary: the specifiers (regular expressions, matched against the text after `from`)
 * that the files of one layer must not import. Each file gets at most one of these (a later
 * config object's options for the same rule would replace, not add to, an earlier one's), so
 * the layers' globs below never overlap.
 * @param {{ regex: string; message: string; allowTypeImports?: boolean }[]} patterns
 */
const boundary = (patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
});

/**
 * A relative import of a folder or module of src/server by name (`../store/x.js`,
 * `../../bus/x.js`, `../app.js`); `names` is an alternation (`core|live`).
 */
const serverFolder = (/** @type {string} */ names) => `^(\\.\\./)+(${names})(/|\\.js$|$)`;

/** The layers and what each may not import (README "How it is built"). */
const layers = [
  {
    // Used by the server and the browser alike: nothing of either, no Node built-ins, no package
    // but zod (and the browser imports zod-bearing modules only for their types).
    files: ['src/shared/**'],
    rules: boundary([
      { regex: '^\\.\\./', message: 'src/shared imports only src/shared.' },
      {
        regex: '^(?!\\.\\.?/|zod$)',
        message: 'src/shared imports no package but zod (it runs in the browser too).',
      },
    ]),
  },
  {
    files: ['src/web/**'],
    rules: {
      // `import { type X }` keeps a bare `import '…'` (verbatimModuleSyntax): the module and its
      // zod would still ship. Only `import type { X }` is erased.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      ...boundary([
        { regex: '^(\\.\\./)+server(/|$)', message: 'The web app never imports server code.' },
        { regex: '^zod(/|$)', message: 'zod must not ship to the browser.' },
        {
          // Their runtime is zod schemas; their types are free (erased at build).
          regex: '(^|/)shared/(api|protocol|activity|alerts)(\\.js)?$',
          allowTypeImports: true,
          message:
            'Use `import type` from shared/api, shared/protocol, shared/activity and shared/alerts: their runtime is zod, which must not ship to the browser (constants live in shared/live, shared/fields, shared/limits).',
        },
      ]),
    },
  },
  {
    // The edges talk to the service and see records only through the store interface.
    files: ['src/server/routes/**', 'src/server/live/**'],
    rules: boundary([
      {
        regex: '^(\\.\\./)+store/(?!types(\\.js)?$)',
        message: 'Routes and the live channel use only store/types.ts (through core).',
      },
    ]),
  },
  {
    // Core speaks in domain errors and plain values: no transport, no edge.
    files: ['src/server/core/**'],
    rules: boundary([
      {
        regex: serverFolder('routes|live'),
        message: 'Core never imports an edge (routes/, live/).',
      },
      {
        regex: '^(fastify|ws)(/|$)',
        message:
          'Core knows no transport: throw a DomainError (errors.ts) and let the edge map it.',
      },
    ]),
  },
  {
    // The rules of Tally alone: no SQL, no I/O, nothing of the server around them. Stores drive
    // the commit (domain/commit.ts) with their reads; the domain never imports them back.
    files: ['src/server/domain/**'],
    rules: boundary([
      {
        regex: '^(?!\\./|\\.\\./\\.\\./shared/|zod$|luxon$|node:crypto$)',
        message:
          'domain/ imports only domain/, src/shared and pure packages (zod, luxon, node:crypto): no store/, routes/, live/, bus/, no database driver, no I/O. A new pure package may be added here.',
      },
    ]),
  },
  {
    // The store and the bus are wired together only by backend.ts. Its adapters import the
    // domain, never the reverse.
    files: ['src/server/store/**'],
    rules: boundary([
      { regex: serverFolder('bus'), message: 'store/ never imports bus/ (backend.ts joins them).' },
      {
        regex: serverFolder('core|routes|live|app|backend|main'),
        message: 'store/ is below core and the edges: it never imports them.',
      },
    ]),
  },
  {
    files: ['src/server/bus/**'],
    rules: boundary([
      {
        regex: serverFolder('store'),
        message: 'bus/ never imports store/ (backend.ts joins them).',
      },
      {
        regex: serverFolder('core|routes|live|app|backend|main'),
        message: 'bus/ is below core and the edges: it never imports them.',
      },
    ]),
  },
];

/**
 * Every user-visible string of the web app is a Lingui message (ADR 35): in src/web a literal that
 * reads as text is refused. Not text: class names, ids, URLs, SVG path data, key names as
 * keyboards print them, single lowercase words (`type="button"`), Tally's own name, a WebSocket's
 * close reason (for the server's log) and an HTTP header.
 */
const localised = ['src/web/**/*.ts', 'src/web/**/*.tsx'];

const noLiteralText = {
  files: localised,
  plugins: { lingui },
  rules: {
    'lingui/no-unlocalized-strings': [
      'error',
      {
        ignore: [
          '^(?![A-Z])\\S+$',
          '^[A-Z0-9_-]+$',
          '^[\\s·©]*Tally$',
          // Services' own names, the same in every language.
          '^(Slack|Discord)$',
          // Class lists: every word has a hyphen or a colon (`text-red-700 dark:text-red-300`).
          '^\\S*[-:]\\S*(\\s+\\S*[-:]\\S*)*$',
          // The buttons' own classes (styles.css): `btn btn-primary`.
          '^btn( btn-[a-z]+)*$',
        ],
        ignoreNames: [
          {
            regex: {
              pattern:
                '^(className|style|key|href|src|type|role|inputMode|autoComplete|autoCapitalize|rel|target|referrerPolicy|lang|dir|name|value|d|viewBox|fill|stroke|strokeLinecap|strokeLinejoin|path|area|keys|authorization)$|Id$|Class(es)?$|testid',
              flags: 'i',
            },
          },
        ],
        ignoreFunctions: [
          'console.*',
          'document.querySelector',
          '*.closest',
          'localStorage.*',
          'Error',
          // An icon's SVG path data (components/icons).
          'icon',
          // A WebSocket's close code and reason, read by the server's log, not by people.
          'socket.close',
        ],
        useTsTypes: true,
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'test-results/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  ...layers,
  noLiteralText,
  {
    // Past three positional parameters a call stops saying what each argument is: an options
    // object names them (ADR 15). Tests and benchmarks are exempt: their helpers are local.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { '@typescript-eslint/max-params': ['error', { max: 3 }] },
  },
  {
    // Which better-sqlite3 runs depends on the Node version (ADR 17): 13 crashes on Node 20,
    // 12 on Node 24.19+. Only store/sqlite/driver.ts picks and loads one.
    files: ['**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/^better-sqlite3/][importKind!='type']",
          message:
            'Take the Database class from sqliteDatabase() in src/server/store/sqlite/driver.ts (it loads the better-sqlite3 this Node can run); `import type` is fine.',
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  prettier,
);
