CREATE TABLE "conversation_lead_fields" (
	"conversation_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" jsonb NOT NULL,
	"source" text NOT NULL,
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversation_lead_fields_conversation_id_key_pk" PRIMARY KEY("conversation_id","key")
);
--> statement-breakpoint
ALTER TABLE "conversation_lead_fields" ADD CONSTRAINT "conversation_lead_fields_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_lead_fields" ADD CONSTRAINT "conversation_lead_fields_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;