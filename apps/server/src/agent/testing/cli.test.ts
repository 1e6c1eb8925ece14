import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/client.ts';
import { conversationPhases, conversationTypes, conversationTypeVersions } from '../../db/schema/index.ts';
import { openTestDatabase } from '../../test/test-database.ts';
import { draftSnapshot } from '../../conversations/playbook-versions.ts';
import { agentTestCommand } from './cli.ts';

/**
 * The CI command's contract (issue 25): exit 0 when the pass rate is met, 1 when not, 2 on a usage or setup
 * error; --json prints one document. Runs offline against the demo agent (scripted prospects).
 */
const pg = process.env.TEST_DB === 'pg';
const dir = mkdtempSync(path.join(tmpdir(), 'agent-test-cli-'));
let database: (Database & { url?: string }) | null = null;
let env: Record<string, string>;
let typeId: number;

async function open(): Promise<Database & { url?: string }> {
  if (pg) return (database ??= await openTestDatabase());
  const db = openDatabase({ pgliteDir: path.join(dir, 'pglite') });
  await db.migrate();
  return db;
}

async function counts() {
  const db = await open();
  const result = await db.db.execute(sql`select
    (select count(*) from conversations)::int as conversations, (select count(*) from messages)::int as messages,
    (select count(*) from outbox)::int as outbox, (select count(*) from jobs)::int as jobs,
    (select count(*) from bookings)::int as bookings, (select count(*) from llm_usage)::int as usage`);
  if (!pg) await db.close();
  return (result as unknown as { rows: unknown[] }).rows[0];
}

beforeAll(async () => {
  const db = await open();
  const [type] = await db.db
    .insert(conversationTypes)
    .values({ title: 'CLI solar', rolePrompt: 'You sell solar.', errorPrompt: 'Sorry.', config: '{}' })
    .returning();
  typeId = type.id;
  await db.db.insert(conversationPhases).values([
    { conversationTypeId: typeId, index: 0, prompt: 'Qualify the lead.', transitionPrompt: 'Qualified?' },
    { conversationTypeId: typeId, index: 1, prompt: 'Offer a demo.', transitionPrompt: 'Agreed?' },
  ]);
  // Version 1: the same playbook, so --version 1 runs too.
  await db.db.insert(conversationTypeVersions).values({ conversationTypeId: typeId, version: 1, snapshot: (await draftSnapshot(db.db, typeId))! });
  env = pg ? { DATABASE_URL: db.url!, APP_SECRET: 'x'.repeat(40) } : { DATA_DIR: dir, APP_SECRET: 'x'.repeat(40) };
  if (!pg) await db.close();
});

afterAll(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

function scenarios(name: string, value: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await agentTestCommand(argv, env, (s) => (stdout += s), (s) => (stderr += s));
  return { code, stdout, stderr };
}

// The demo agent advances one phase per prospect message: two messages end a two-phase playbook.
const reachable = { name: 'reaches the demo phase', opening: 'Hi, I want solar', messages: ['Sounds good'], criteria: [{ kind: 'reachesPhase', phase: 1 }, { kind: 'ended' }] };
const unreachable = { name: 'books a meeting', opening: 'Hi', messages: [], criteria: [{ kind: 'booked' }, { kind: 'neverSays', text: 'Phase' }] };

describe('npm run agent:test', () => {
  it('exits 0 with a --json report when every run passes, and leaves nothing behind', async () => {
    const before = await counts();
    const file = scenarios('pass.json', [reachable]);
    const result = await run('--type', String(typeId), '--scenarios', file, '--runs', '2', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ version: 'draft', runs: 2, passedRuns: 2, passRate: 1, passed: true });
    expect(report.scenarios[0]).toMatchObject({ name: 'reaches the demo phase', passed: true });
    expect(report.scenarios[0].runs[0].criteria.map((c: { passed: boolean }) => c.passed)).toEqual([true, true]);
    expect(report.scenarios[0].runs[0].transcript[0]).toMatchObject({ role: 'PROSPECT', text: 'Hi, I want solar' });
    expect(await counts()).toEqual(before);
  });

  it('exits 1 below the pass rate, naming the failing criterion; --min-pass-rate and the type name work', async () => {
    const file = scenarios('mixed.json', [reachable, unreachable]);
    const failed = await run('--type', 'cli solar', '--version', '1', '--scenarios', file);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('FAIL  books a meeting');
    expect(failed.stdout).toContain('booked: No meeting was booked.');
    expect(failed.stdout).toContain('Pass rate 50 %');
    expect((await run('--type', String(typeId), '--scenarios', file, '--min-pass-rate', '0.5')).code).toBe(0);
  });

  it('exits 2 with a sentence on a usage or setup error', async () => {
    const good = scenarios('good.json', [reachable]);
    const cases: [string[], RegExp][] = [
      [['--scenarios', good], /--type is required/],
      [['--type', '999999', '--scenarios', good], /no conversation type "999999"/],
      [['--type', String(typeId), '--version', '7', '--scenarios', good], /has no version 7/],
      [['--type', String(typeId), '--version', 'latest', '--scenarios', good], /--version must be/],
      [['--type', String(typeId), '--scenarios', path.join(dir, 'missing.json')], /does not exist/],
      [['--type', String(typeId), '--scenarios', scenarios('bad.json', [{ name: 'x', criteria: [] }])], /invalid at 0\.opening/],
      [['--type', String(typeId), '--scenarios', scenarios('kind.json', [{ ...reachable, criteria: [{ kind: 'wins' }] }])], /invalid at 0\.criteria\.0/],
      [['--type', String(typeId), '--scenarios', good, '--min-pass-rate', '2'], /--min-pass-rate must be/],
      [['--type', String(typeId), '--scenarios', scenarios('persona.json', [{ name: 'p', opening: 'Hi', persona: 'A buyer', criteria: [] }])], /needs an LLM/],
      [['--type', String(typeId), '--bogus'], /Unknown argument/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it.skipIf(pg)('on PGlite, says so when a running server holds the data directory', async () => {
    const pid = path.join(dir, 'pglite', 'postmaster.pid');
    mkdirSync(path.dirname(pid), { recursive: true });
    writeFileSync(pid, '1');
    try {
      const result = await run('--type', String(typeId), '--scenarios', scenarios('lock.json', [reachable]));
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/in use by a running server.*stop the server/);
    } finally {
      rmSync(pid);
    }
  });
});
