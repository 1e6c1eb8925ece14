import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { scenarioSchema, scenariosFileSchema, type Scenario } from '@sales-agent/shared/schemas/agent-tests';
import { asc, eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { EnvError, loadConfig, readEnvironment } from '../../config/env.ts';
import type { AppContext } from '../../context.ts';
import { openDatabase } from '../../db/client.ts';
import { agentTestScenarios, conversationTypes } from '../../db/schema/index.ts';
import { parseVersionRef, readSnapshot } from '../../conversations/playbook-versions.ts';
import { formatReport, runBatch } from './run-batch.ts';
import { SandboxSetupError } from './sandbox-run.ts';

/**
 * `npm run agent:test -- --type <id|name> [--version draft|N] [--runs N] [--scenarios file.json]
 * [--min-pass-rate 0..1] [--json]` (issue 25 contract, docs/agent-tests.md). Exit 0: the pass rate is met;
 * 1: it is not; 2: a usage or setup error (sentence on stderr). The runs are played in the sandbox, so the
 * team's data gets nothing (no conversation, message, send or run row).
 */
export class UsageError extends Error {}

const USAGE =
  'Usage: npm run agent:test -- --type <id|name> [--version draft|N] [--runs N] [--scenarios file.json] [--min-pass-rate 0..1] [--json]';

interface Options {
  type: string;
  version: string;
  runs: number;
  scenarios: string | null;
  minPassRate: number | null;
  json: boolean;
}

export function parseArgs(argv: string[]): Options {
  const options: Options = { type: '', version: 'draft', runs: 1, scenarios: null, minPassRate: null, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value. ${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--type':
        options.type = value();
        break;
      case '--version':
        options.version = value();
        break;
      case '--runs': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100) throw new UsageError(`--runs must be a whole number from 1 to 100, not "${v}".`);
        options.runs = Number(v);
        break;
      }
      case '--scenarios':
        options.scenarios = value();
        break;
      case '--min-pass-rate': {
        const v = value();
        const n = Number(v);
        if (!/^\d*\.?\d+$/.test(v) || !(n >= 0 && n <= 1)) throw new UsageError(`--min-pass-rate must be a number from 0 to 1, not "${v}".`);
        options.minPassRate = n;
        break;
      }
      case '--json':
        options.json = true;
        break;
      case '--help':
      case '-h':
        throw new UsageError(USAGE);
      default:
        throw new UsageError(`Unknown argument "${arg}". ${USAGE}`);
    }
  }
  if (!options.type) throw new UsageError(`--type is required. ${USAGE}`);
  return options;
}

/** Reads and checks a scenarios file; every problem is a UsageError naming the file and the field. */
export function readScenariosFile(file: string): Scenario[] {
  const full = path.resolve(file);
  if (!existsSync(full)) throw new UsageError(`The scenarios file ${full} does not exist.`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(full, 'utf8'));
  } catch (err) {
    throw new UsageError(`The scenarios file ${full} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = scenariosFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`The scenarios file ${full} is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  if (parsed.data.length === 0) throw new UsageError(`The scenarios file ${full} holds no scenario.`);
  return parsed.data;
}

/** Runs the command; answers the exit code. Output goes to the given writers (tests capture them). */
export async function agentTestCommand(argv: string[], env: Record<string, string | undefined>, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let database: ReturnType<typeof openDatabase> | null = null;
  try {
    const options = parseArgs(argv);
    const fileScenarios = options.scenarios ? readScenariosFile(options.scenarios) : null;
    const version = parseVersionRef(options.version);
    if (version === null) throw new UsageError(`--version must be "draft" or a version number, not "${options.version}".`);
    const config = loadConfig({ ...env, APP_SECRET: env.APP_SECRET || 'placeholder-for-agent-test' });
    if (!config.DATABASE_URL) {
      const dir = path.join(config.DATA_DIR, 'pglite');
      // PGlite is embedded: one process at a time may open its directory (docs/agent-tests.md).
      if (existsSync(path.join(dir, 'postmaster.pid'))) {
        throw new UsageError(
          `The embedded database at ${dir} is in use by a running server (postmaster.pid exists): stop the server, ` +
            'or point DATABASE_URL at PostgreSQL, then run agent:test again.',
        );
      }
      if (!existsSync(dir)) throw new UsageError(`There is no database at ${dir}: start the server once (npm start) or set DATA_DIR / DATABASE_URL.`);
    }
    database = openDatabase({ url: config.DATABASE_URL, pgliteDir: `${config.DATA_DIR}/pglite`, poolSize: 2 });
    await database.migrate();
    const ctx = { config, database, db: database.db, log: pino({ level: 'warn' }, pino.destination(2)) } as unknown as AppContext;
    const type = await findType(ctx, options.type);
    const snapshot = await readSnapshot(ctx.db, type.id, version);
    if (!snapshot) throw new UsageError(`Conversation type ${type.id} has no version ${version}.`);
    const scenarios = fileScenarios ?? (await storedScenarios(ctx, type.id));
    if (scenarios.length === 0) throw new UsageError(`Conversation type ${type.id} has no test scenarios; write some on its Tests page or pass --scenarios file.json.`);
    const report = await runBatch(ctx, {
      type: { id: type.id, title: type.title },
      version,
      snapshot,
      scenarios,
      runs: options.runs,
      minPassRate: options.minPassRate ?? requiredRate(snapshot.config),
    });
    out(options.json ? JSON.stringify(report) : formatReport(report));
    return report.passed ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError || error instanceof EnvError || error instanceof SandboxSetupError) {
      err(error.message);
      return 2;
    }
    err(`agent:test failed: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  } finally {
    await database?.close().catch(() => undefined);
  }
}

function requiredRate(configText: string): number | null {
  try {
    const rate = (JSON.parse(configText) as { tests?: { minPassRate?: unknown } })?.tests?.minPassRate;
    return typeof rate === 'number' && rate >= 0 && rate <= 1 ? rate : null;
  } catch {
    return null;
  }
}

async function findType(ctx: AppContext, ref: string): Promise<{ id: number; title: string | null }> {
  const columns = { id: conversationTypes.id, title: conversationTypes.title };
  if (/^\d+$/.test(ref) && Number(ref) <= 2_147_483_647) {
    const [type] = await ctx.db.select(columns).from(conversationTypes).where(eq(conversationTypes.id, Number(ref))).limit(1);
    if (type) return type;
  }
  const matches = await ctx.db
    .select(columns)
    .from(conversationTypes)
    .where(sql`lower(${conversationTypes.title}) = lower(${ref})`)
    .orderBy(asc(conversationTypes.id));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw new UsageError(`${matches.length} conversation types are named "${ref}" (ids ${matches.map((m) => m.id).join(', ')}): pass --type <id>.`);
  throw new UsageError(`There is no conversation type "${ref}" (give its id or exact name).`);
}

async function storedScenarios(ctx: AppContext, typeId: number): Promise<Scenario[]> {
  const rows = await ctx.db.select().from(agentTestScenarios).where(eq(agentTestScenarios.conversationTypeId, typeId)).orderBy(asc(agentTestScenarios.id));
  return rows.flatMap((row) => {
    const parsed = scenarioSchema.safeParse(row.definition);
    return parsed.success ? [parsed.data] : [];
  });
}

const isMain = process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('agent', 'testing', 'cli.ts'));
if (isMain) {
  let env: Record<string, string | undefined>;
  try {
    env = readEnvironment();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const code = await agentTestCommand(process.argv.slice(2), env, (s) => process.stdout.write(`${s}\n`), (s) => process.stderr.write(`${s}\n`));
  process.exitCode = code;
}
