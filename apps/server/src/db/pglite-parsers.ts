import { type PGlite, type QueryOptions, type Transaction, types } from '@electric-sql/pglite';

/**
 * Type parsers drizzle hands PGlite with EVERY query (drizzle-orm/pglite/session.js): dates, timestamps and
 * intervals, and their arrays, stay text, which drizzle's columns then map. PGlite merges per-query parsers
 * into its own table of about 300 with an object spread (`{ ...this.parsers, ...options.parsers }`), which
 * costs about 0.2 ms of CPU per statement: more than a small indexed read, and the largest single item of
 * the conversation read's profile once it was one prepared statement (docs/performance.md "Conversation
 * read").
 */
const DRIZZLE_RAW_TEXT_TYPES = [
  types.TIMESTAMP,
  types.TIMESTAMPTZ,
  types.INTERVAL,
  types.DATE,
  1231, // numeric[]
  1115, // timestamp[]
  1185, // timestamptz[]
  1187, // interval[]
  1182, // date[]
].map(String);
const rawText = new Set(DRIZZLE_RAW_TEXT_TYPES);
const keepText = (value: string) => value;

type Query = PGlite['query'];

/**
 * Sets drizzle's parsers on the instance once (after PGlite has built its array parsers, which would replace
 * them) and from then on drops them from each query's options, so PGlite uses its table as it is. Options
 * with any other parser keep the per-query merge. Only for the instance drizzle owns: every query there
 * wants these types as text.
 */
export function withDrizzleParsersOnce(client: PGlite): PGlite {
  let installed = false;
  client.waitReady
    .then(() => {
      for (const oid of DRIZZLE_RAW_TEXT_TYPES) client.parsers[oid] = keepText;
      installed = true;
    })
    // A failed start surfaces in the queries themselves.
    .catch(() => undefined);

  const strip = (options?: QueryOptions): QueryOptions | undefined => {
    if (!installed || !options?.parsers) return options;
    for (const oid of Object.keys(options.parsers)) if (!rawText.has(oid)) return options;
    return { ...options, parsers: undefined };
  };
  const wrapQuery = (query: Query): Query => ((text: string, params?: unknown[], options?: QueryOptions) => query(text, params, strip(options))) as Query;

  client.query = wrapQuery(client.query.bind(client));
  const transaction = client.transaction.bind(client);
  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      tx.query = wrapQuery(tx.query.bind(tx));
      return callback(tx);
    })) as PGlite['transaction'];
  return client;
}
