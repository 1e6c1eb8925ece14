ALTER TABLE "messages" ADD COLUMN "previous_message" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "edited_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "media_key" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "media_type" text;--> statement-breakpoint
ALTER TABLE "prospects" ADD COLUMN "scoped_user_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "prospects_account_scoped_user_unique" ON "prospects" USING btree ("messaging_account_id","scoped_user_id","simulated") WHERE "prospects"."scoped_user_id" is not null;