ALTER TABLE "channel_messages" ADD COLUMN "delivery_state" text;--> statement-breakpoint
ALTER TABLE "channel_messages" ADD COLUMN "delivery_error" text;--> statement-breakpoint
CREATE INDEX "outbox_message_id_index" ON "outbox" USING btree ("message_id");