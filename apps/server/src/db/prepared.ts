import type { PGlite } from '@electric-sql/pglite';
import { isUuid } from '@sales-agent/shared/uuid';
import { is, Placeholder, type SQLWrapper } from 'drizzle-orm';
import type { Database, Db } from './client.ts';

/**
 * A hot read statement parsed and planned once, then run many times (docs/performance.md "Conversation read").
 *
 * - PostgreSQL: a named prepared statement (node-postgres prepares it on each pooled connection at first use).
 * - PGlite: its query() parses and plans every statement anew, and planning in WebAssembly (with a file-size
 *   system call per relation) costs several times the execution of a small indexed read. PGlite is one
 *   connection for the whole process, so the statement is PREPAREd on it once and run with EXECUTE. EXECUTE
 *   takes no bind parameters, only literals: `literal` accepts integers, booleans, null and uuids, nothing
 *   that could carry SQL.
 *
 * Rows come back as objects keyed by column name: give every selected field an alias (`sql\`…\`.as('name')`)
 * equal to its key, so both drivers answer the same object. Values are the drivers' own (json parsed,
 * timestamps as text), not mapped by drizzle.
 */
export interface PreparedRead<Values extends Record<string, unknown>, Row> {
  execute(values: Values): Promise<Row[]>;
}

interface Query extends SQLWrapper {
  toSQL(): { sql: string; params: unknown[] };
  prepare(name: string): { execute(values: Record<string, unknown>): Promise<unknown[]> };
}

export function preparedRead<Values extends Record<string, unknown>, Row>(
  database: Database,
  name: string,
  build: (db: Db) => Query,
): PreparedRead<Values, Row> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`preparedRead: ${name} is not a plain statement name`);
  const query = build(database.db);
  if (database.driver === 'pg') {
    const statement = query.prepare(name);
    return { execute: async (values) => (await statement.execute(values)) as Row[] };
  }
  const { sql: text, params } = query.toSQL();
  // The PGlite instance itself (drizzle's documented $client): exec() sends EXECUTE in the simple protocol, one
  // call into PGlite instead of the extended protocol's six, under the same lock as every other query.
  const client = (database.db as unknown as { $client: PGlite }).$client;
  let prepared: Promise<unknown> | null = null;
  return {
    async execute(values) {
      // Once per PGlite instance; concurrent first calls share the one PREPARE.
      prepared ??= client.exec(`prepare ${name} as ${text}`).catch((err: unknown) => {
        prepared = null;
        throw err;
      });
      await prepared;
      const args = params.map((param) => literal(is(param, Placeholder) ? values[param.name] : param));
      const [result] = await client.exec(`execute ${name}(${args.join(', ')})`);
      return result.rows as Row[];
    },
  };
}

/** An EXECUTE argument as SQL text: only values whose text form cannot contain anything but themselves. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (isUuid(value)) return `'${value}'`;
  throw new Error(`preparedRead: a ${typeof value} (${String(value).slice(0, 40)}) cannot be an EXECUTE argument (integers, booleans, null and uuids only)`);
}
