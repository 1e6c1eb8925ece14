CREATE TABLE "conversation_locks" (
	"conversation_id" integer PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD COLUMN "messaging_account_id" integer;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD COLUMN "prospect_id" integer;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD COLUMN "conversation_id" integer;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD COLUMN "user_id" integer;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_messaging_account_id_messaging_accounts_id_fk" FOREIGN KEY ("messaging_account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_prospect_id_prospects_id_fk" FOREIGN KEY ("prospect_id") REFERENCES "public"."prospects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_inbox_processed_at_index" ON "webhook_inbox" USING btree ("processed_at");--> statement-breakpoint
CREATE INDEX "webhook_inbox_messaging_account_id_index" ON "webhook_inbox" USING btree ("messaging_account_id");--> statement-breakpoint
CREATE INDEX "webhook_inbox_prospect_id_index" ON "webhook_inbox" USING btree ("prospect_id");--> statement-breakpoint
CREATE INDEX "webhook_inbox_conversation_id_index" ON "webhook_inbox" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "webhook_inbox_user_id_index" ON "webhook_inbox" USING btree ("user_id");