/**
 * The hardening suites start servers with test/helpers/server.ts, choosing the security limits:
 * suites that fire thousands of requests from one address lift them, the rate-limit suite
 * chooses small ones.
 */
import type { SecurityPolicy } from '../../../src/server/security/policy.js';
import { startServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

export type HardenedServer = TestServer;

/** Limits no test reaches: for suites that are not about limits. */
export const UNLIMITED: SecurityPolicy = {
  keyFailures: {
    perClient: { burst: 1e9, refillMs: 1 },
    perGroup: { burst: 1e9, refillMs: 1 },
  },
  liveMessages: { burst: 1e9, refillMs: 1 },
  heavyReads: { atOnce: 1e9, rate: { burst: 1e9, refillMs: 1 } },
};

export function startHardenedServer(
  options: Pick<
    TestServerOptions,
    'security' | 'database' | 'logLevel' | 'trustProxy' | 'limits' | 'timeouts' | 'fairShare'
  > = {},
): Promise<HardenedServer> {
  return startServer(options);
}
