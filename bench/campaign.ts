/**
 * Outbound campaigns (issue 23 item 4): does a campaign of 10,000 contacts keep its pace, and what does its
 * scheduler cost? Not part of `npm test`.
 *
 *   node --import tsx bench/campaign.ts
 *
 * An SMS campaign of BENCH_CONTACTS (default 10,000) numbers on a Twilio account whose REST API is the loopback
 * fake (in this process), run by the app's own job runner on the real clock at BENCH_RATE contacts per minute
 * (default 600, the most a campaign allows) for BENCH_SECONDS (default 120). Measured: contacts started per
 * minute against the configured rate, the spread of the gaps between starts, and the process's CPU (scheduler
 * ticks + the lead path's rows + the deliveries to the fake, everything) as a share of one core; then the same
 * with the deliveries' share taken out (ticks alone, timed). PostgreSQL (BENCH_DATABASE_URL, a fresh database,
 * dropped after) or PGlite (BENCH_DB=pglite).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { eq } from 'drizzle-orm';
import { buildApp } from '../apps/server/src/app.ts';
import { benchConfig } from './support/bench-config.ts';
import { campaignContacts } from '../apps/server/src/db/schema/index.ts';
import * as tick from '../apps/server/src/modules/campaigns/campaign-tick.ts';
import { changeCampaign, createCampaign } from '../apps/server/src/modules/campaigns/campaigns.service.ts';
import { buildPlaybook } from '../apps/server/src/test/agent-factories.ts';
import { buildChannelAccount } from '../apps/server/src/test/channel-factories.ts';
import { buildAdmin } from '../apps/server/src/test/factories.ts';
import { startTwilioFake } from '../apps/server/src/test/fakes/twilio-fake.ts';
import { openTestDatabase } from '../apps/server/src/test/test-database.ts';
import { ACCOUNT_SID, AUTH_TOKEN } from '../apps/server/src/voice/voice-test-kit.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 120);
if (process.env.BENCH_DB !== 'pglite') {
  process.env.TEST_DB = 'pg';
  process.env.TEST_DATABASE_URL ??= process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

const twilio = await startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } });
const database = await openTestDatabase();
const config = benchConfig({ TWILIO_API_URL: twilio.url, QUIET_HOURS_ENFORCED: 'false' });
const { app, ctx } = await buildApp({ config, database });
await app.ready();
try {
  const type = await buildPlaybook(ctx, { initialMessage: 'Hi! A quick question about your roof?' });
  await buildChannelAccount(ctx, { type: 'TWILIO', pageId: '+15550004444', token: AUTH_TOKEN, config: { accountSid: ACCOUNT_SID }, conversationTypeId: type.id });
  const admin = await buildAdmin(ctx);
  const contacts = Array.from({ length: CONTACTS }, (_, i) => ({ phone: `+1${String(2125550000 + i)}` }));
  const created = performance.now();
  const { id } = await createCampaign(ctx, admin, { name: 'bench', conversationTypeId: type.id, channel: 'sms', contacts, callsPerMinute: RATE });
  console.log(`created ${CONTACTS} contacts in ${((performance.now() - created) / 1000).toFixed(1)} s`);

  // Time the ticks themselves (the scheduler), beside the process's whole CPU.
  let tickMs = 0;
  let ticks = 0;
  const job = ctx.jobs as unknown as { definitions: Map<string, { handler: (...a: unknown[]) => Promise<void> }> };
  const definition = job.definitions.get(tick.CAMPAIGN_TICK_JOB)!;
  const handler = definition.handler;
  definition.handler = async (c: unknown, payload: unknown, claimed: unknown) => {
    const started = performance.now();
    try {
      return await handler(c, payload, claimed);
    } finally {
      tickMs += performance.now() - started;
      ticks += 1;
    }
  };

  ctx.jobs.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await changeCampaign(ctx, admin, id, 'start');
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await changeCampaign(ctx, admin, id, 'pause');
  await ctx.jobs.stop();

  const started = (await ctx.db.select({ at: campaignContacts.claimedAt }).from(campaignContacts).where(eq(campaignContacts.campaignId, id)))
    .map((r) => r.at?.getTime())
    .filter((t): t is number => t !== undefined)
    .sort((a, b) => a - b);
  const gaps = started.slice(1).map((t, i) => t - started[i]);
  const sortedGaps = [...gaps].sort((a, b) => a - b);
  const span = (started.at(-1)! - started[0]) / 1000;
  const pace = ((started.length - 1) / span) * 60;
  const cpuShare = (cpu.user + cpu.system) / 1000 / (elapsed * 1000);
  console.log(
    JSON.stringify(
      {
        db: process.env.BENCH_DB === 'pglite' ? 'pglite' : 'pg',
        contacts: CONTACTS,
        configuredPerMinute: RATE,
        seconds: Number(elapsed.toFixed(1)),
        started: started.length,
        achievedPerMinute: Number(pace.toFixed(1)),
        paceErrorPct: Number((((pace - RATE) / RATE) * 100).toFixed(2)),
        gapMs: { p5: sortedGaps[Math.floor(gaps.length * 0.05)], p50: sortedGaps[Math.floor(gaps.length / 2)], p95: sortedGaps[Math.floor(gaps.length * 0.95)] },
        messagesAtFake: twilio.messages.length,
        processCpuPctOfCore: Number((cpuShare * 100).toFixed(2)),
        tickWallMsTotal: Math.round(tickMs),
        ticks,
        tickWallPctOfElapsed: Number(((tickMs / (elapsed * 1000)) * 100).toFixed(2)),
        load: loadavg().map((n) => n.toFixed(1)),
      },
      null,
      2,
    ),
  );
} finally {
  await app.close();
  await database.close();
  await twilio.close();
}
