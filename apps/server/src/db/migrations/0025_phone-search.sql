-- Custom migration (issue 24, search): the inbox search finds a prospect by any run of the digits of its
-- phone number ("555 0104" finds +15550104477), an infix match that a btree cannot serve; without this index
-- every search read all prospects (about 1 s at 200,000 prospects, bench/conversation-list.ts). pg_trgm ships
-- with PostgreSQL (contrib; trusted, so the database owner may create it) and with PGlite (db/client.ts loads it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "prospects_phone_digits_trgm_index" ON "prospects" USING gin (regexp_replace("external_id", '[^0-9]', '', 'g') gin_trgm_ops);
