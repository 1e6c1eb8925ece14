ALTER TABLE "campaign_contacts" ADD COLUMN "code" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "busy_retries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "voicemail_retries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "voicemail_message" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "start_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "whatsapp_template" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "audience" jsonb;--> statement-breakpoint
CREATE INDEX "campaign_contacts_conversation_idx" ON "campaign_contacts" USING btree ("conversation_id");