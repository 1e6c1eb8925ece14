ALTER TABLE "conversations" ADD COLUMN "call_sid" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "call_status" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "call_direction" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "use_realtime_api" boolean;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "crm_contact_id" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "answered_by" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "call_duration" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "tts_characters" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "call_cost_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "conversations_call_sid_unique" ON "conversations" USING btree ("call_sid") WHERE "conversations"."call_sid" is not null;