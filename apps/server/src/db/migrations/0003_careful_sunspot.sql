CREATE TABLE "channel_messages" (
	"messaging_account_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"direction" text NOT NULL,
	"conversation_id" integer,
	"message_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_messages_messaging_account_id_external_id_pk" PRIMARY KEY("messaging_account_id","external_id")
);
--> statement-breakpoint
ALTER TABLE "messaging_accounts" ADD COLUMN "created_by_user_id" integer;--> statement-breakpoint
ALTER TABLE "prospects" ADD COLUMN "simulated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "sent_parts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD COLUMN "simulated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_messages" ADD CONSTRAINT "channel_messages_messaging_account_id_messaging_accounts_id_fk" FOREIGN KEY ("messaging_account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_messages" ADD CONSTRAINT "channel_messages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_messages_conversation_id_index" ON "channel_messages" USING btree ("conversation_id");--> statement-breakpoint
ALTER TABLE "messaging_accounts" ADD CONSTRAINT "messaging_accounts_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;