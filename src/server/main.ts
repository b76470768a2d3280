/** Starts Tally: `npm start` (after the build) runs this file. */
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

/** A stop that takes longer than this is forced, ms. */
const STOP_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp({ config });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing in-flight writes and closing sockets');
    setTimeout(() => {
      app.log.error('stop timed out');
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await app.listen({ port: config.port, host: config.host });
  // The whole process's socket ceiling, derived from the descriptor limit (docs/api.md "Limits").
  app.log.info({ maxConnections: app.server.maxConnections }, 'connection ceiling');
}

main().catch((error: unknown) => {
  // A one-line reason, not a stack trace wall: configuration and start-up problems are the
  // operator's to fix.
  if (error instanceof ConfigError) console.error(`tally: invalid configuration: ${error.message}`);
  else if (isErrnoException(error) && error.code === 'EADDRINUSE') {
    console.error(`tally: port already in use (${error.message})`);
  } else
    console.error(
      `tally: could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  process.exit(1);
});

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}
