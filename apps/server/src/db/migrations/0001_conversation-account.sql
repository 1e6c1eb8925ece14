ALTER TABLE "conversations" ADD COLUMN "messaging_account_id" integer;--> statement-breakpoint
-- Backfill (added by hand to the generated file): every prospect conversation takes its prospect's account,
-- before the constraints below check it and before the indexes are built.
UPDATE "conversations" SET "messaging_account_id" = "prospects"."messaging_account_id" FROM "prospects" WHERE "prospects"."id" = "conversations"."prospect_id";--> statement-breakpoint
ALTER TABLE "prospects" ADD CONSTRAINT "prospects_id_messaging_account_id_unique" UNIQUE("id","messaging_account_id");--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_messaging_account_id_messaging_accounts_id_fk" FOREIGN KEY ("messaging_account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_prospect_account_fk" FOREIGN KEY ("prospect_id","messaging_account_id") REFERENCES "public"."prospects"("id","messaging_account_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_account_with_prospect" CHECK (("conversations"."prospect_id" is null) = ("conversations"."messaging_account_id" is null));--> statement-breakpoint
CREATE INDEX "conversations_messaging_account_id_last_message_date_id_index" ON "conversations" USING btree ("messaging_account_id","last_message_date" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "conversations_messaging_account_id_created_at_id_index" ON "conversations" USING btree ("messaging_account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);
