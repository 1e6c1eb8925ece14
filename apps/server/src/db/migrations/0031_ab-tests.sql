CREATE TABLE "ab_tests" (
	"id" serial PRIMARY KEY NOT NULL,
	"conversation_type_id" integer NOT NULL,
	"version_a" integer NOT NULL,
	"version_b" integer NOT NULL,
	"weight_b" double precision NOT NULL,
	"winner" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopped_at" timestamp with time zone,
	"created_by_user_id" integer,
	CONSTRAINT "ab_tests_weight_b" CHECK ("ab_tests"."weight_b" >= 0 and "ab_tests"."weight_b" <= 1)
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "ab_test_id" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "ab_arm" text;--> statement-breakpoint
ALTER TABLE "ab_tests" ADD CONSTRAINT "ab_tests_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ab_tests" ADD CONSTRAINT "ab_tests_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ab_tests_conversation_type_id_id_index" ON "ab_tests" USING btree ("conversation_type_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "ab_tests_one_running_per_type" ON "ab_tests" USING btree ("conversation_type_id") WHERE "ab_tests"."stopped_at" is null;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_ab_test_id_ab_tests_id_fk" FOREIGN KEY ("ab_test_id") REFERENCES "public"."ab_tests"("id") ON DELETE set null ON UPDATE no action;