CREATE TABLE "do_not_contact" (
	"id" serial PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"channel" text NOT NULL,
	"how" text NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp with time zone,
	"cleared_by_user_id" integer,
	"clear_note" text
);
--> statement-breakpoint
ALTER TABLE "do_not_contact" ADD CONSTRAINT "do_not_contact_cleared_by_user_id_users_id_fk" FOREIGN KEY ("cleared_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "do_not_contact_address_idx" ON "do_not_contact" USING btree ("address");