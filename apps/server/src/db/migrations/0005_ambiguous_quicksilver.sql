CREATE TABLE "live_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live_stream_leases" (
	"id" text PRIMARY KEY NOT NULL,
	"client_key" text NOT NULL,
	"instance_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"count" bigint NOT NULL,
	"reset_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "live_events_created_at_index" ON "live_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "live_stream_leases_client_key_index" ON "live_stream_leases" USING btree ("client_key");--> statement-breakpoint
CREATE INDEX "live_stream_leases_instance_id_index" ON "live_stream_leases" USING btree ("instance_id");--> statement-breakpoint
CREATE INDEX "rate_counters_reset_at_index" ON "rate_counters" USING btree ("reset_at");