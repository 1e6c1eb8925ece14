import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** Both drivers expose the same query builder; code depends on this common type only. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The database or an open transaction (drizzle's `tx`): what a write that may join the caller's transaction takes. */
export type Executor = Db | Parameters<Parameters<Db['transaction']>[0]>[0];
