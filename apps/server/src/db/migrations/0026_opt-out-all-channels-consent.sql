CREATE TABLE "consent_records" (
	"id" serial PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"channel" text NOT NULL,
	"granted" boolean NOT NULL,
	"source" text NOT NULL,
	"note" text,
	"by_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "do_not_contact" ADD COLUMN "origin_id" integer;--> statement-breakpoint
ALTER TABLE "consent_records" ADD CONSTRAINT "consent_records_by_user_id_users_id_fk" FOREIGN KEY ("by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consent_records_address_idx" ON "consent_records" USING btree ("address","channel","id");--> statement-breakpoint
CREATE INDEX "do_not_contact_origin_idx" ON "do_not_contact" USING btree ("origin_id");