/**
 * One attack in its own process: `node --import tsx bench/abuse/attacker.ts '<AttackOrder JSON>'`.
 * Prints one JSON line `{"ready":true}` when its setup is done (the member is measured from
 * then on), then one `{"result":…}` line, then exits. bench/abuse.ts kills it if it overstays.
 */
import { ATTACKS, type AttackContext } from './attacks.js';

export interface AttackOrder {
  attack: string;
  origin: string;
  durationMs: number;
  memberGroup: string;
  largeGroup?: { name: string; key: string };
  counterCap: number;
  connectionCap: number;
}

const say = (line: unknown) =>
  new Promise<void>((resolve) => {
    process.stdout.write(`${JSON.stringify(line)}\n`, () => {
      resolve();
    });
  });

async function main(): Promise<void> {
  const order = JSON.parse(process.argv[2] ?? '{}') as AttackOrder;
  const attack = ATTACKS.find((candidate) => candidate.name === order.attack);
  if (attack === undefined) throw new Error(`unknown attack ${order.attack}`);
  const ctx: AttackContext = { ...order, origin: new URL(order.origin) };
  await attack.prepare?.(ctx);
  await say({ ready: true });
  const result = await attack.run(ctx, Date.now() + ctx.durationMs);
  await say({ result: { ...result, largeGroup: result.largeGroup ?? ctx.largeGroup } });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`attacker: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
