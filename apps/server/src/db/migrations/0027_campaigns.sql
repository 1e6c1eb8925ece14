CREATE TABLE "campaign_contacts" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"phone" text NOT NULL,
	"name" text,
	"fields" jsonb,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"not_before" timestamp with time zone,
	"claimed_at" timestamp with time zone,
	"conversation_id" integer,
	"detail" text,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "campaign_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"kind" text NOT NULL,
	"user_id" integer,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"conversation_type_id" integer NOT NULL,
	"channel" text NOT NULL,
	"messaging_account_id" integer,
	"status" text DEFAULT 'draft' NOT NULL,
	"calls_per_minute" integer NOT NULL,
	"max_concurrent" integer NOT NULL,
	"window" jsonb,
	"retries" integer NOT NULL,
	"retry_delay_minutes" integer NOT NULL,
	"next_send_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_events" ADD CONSTRAINT "campaign_events_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_events" ADD CONSTRAINT "campaign_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_contacts_campaign_phone_idx" ON "campaign_contacts" USING btree ("campaign_id","phone");--> statement-breakpoint
CREATE INDEX "campaign_contacts_queued_idx" ON "campaign_contacts" USING btree ("campaign_id","id") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "campaign_contacts_calling_idx" ON "campaign_contacts" USING btree ("campaign_id") WHERE status = 'calling';--> statement-breakpoint
CREATE INDEX "campaign_events_campaign_id_index" ON "campaign_events" USING btree ("campaign_id");