CREATE TABLE "canned_replies" (
	"id" serial PRIMARY KEY NOT NULL,
	"shortcut" text NOT NULL,
	"text" text NOT NULL,
	"created_by_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channel_messages" ADD COLUMN "delivery_state" text;--> statement-breakpoint
ALTER TABLE "channel_messages" ADD COLUMN "delivery_error" text;--> statement-breakpoint
ALTER TABLE "canned_replies" ADD CONSTRAINT "canned_replies_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "canned_replies_shortcut_index" ON "canned_replies" USING btree ("shortcut");--> statement-breakpoint
CREATE INDEX "outbox_message_id_index" ON "outbox" USING btree ("message_id");