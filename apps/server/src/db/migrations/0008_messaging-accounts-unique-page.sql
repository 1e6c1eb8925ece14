-- Accounts made twice for one page/number (the admin form allowed it) must differ before the unique index
-- exists. Inbound webhooks already went to the newest of them (channels/accounts.ts findAccountByKey): it keeps
-- the page id; each older one is renamed "<page id> (duplicate, account <id>)", keeps its conversations and
-- shows up in the admin list to be deleted or corrected (docs/messaging-accounts.md).
UPDATE "messaging_accounts" AS "m" SET "page_id" = "m"."page_id" || ' (duplicate, account ' || "m"."id" || ')'
WHERE EXISTS (
  SELECT 1 FROM "messaging_accounts" AS "n"
  WHERE "n"."type" = "m"."type" AND "n"."page_id" = "m"."page_id" AND "n"."id" > "m"."id"
);--> statement-breakpoint
DROP INDEX "messaging_accounts_type_page_id_index";--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_accounts_type_page_id_unique" ON "messaging_accounts" USING btree ("type","page_id");
