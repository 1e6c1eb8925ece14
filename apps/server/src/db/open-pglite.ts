import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/**
 * Every PGlite the product opens (the app, backups, migration tests) loads the extensions that the migrations
 * create, as PostgreSQL has them installed: pg_trgm (0025_phone-search.sql).
 */
export function openPglite(dir: string, options: PGliteOptions = {}): PGlite {
  return new PGlite(dir, { ...options, extensions: { pg_trgm, ...options.extensions } });
}
