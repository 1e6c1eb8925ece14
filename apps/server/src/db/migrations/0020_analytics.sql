ALTER TABLE "conversations" ADD COLUMN "max_phase" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "first_prospect_message_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "first_reply_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "first_reply_by_human" boolean;--> statement-breakpoint
CREATE INDEX "conversations_analytics_index" ON "conversations" USING btree ("conversation_type_id","created_at","max_phase","messaging_account_id","first_prospect_message_at","first_reply_at");