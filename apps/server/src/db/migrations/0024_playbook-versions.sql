CREATE TABLE "agent_test_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"conversation_type_id" integer NOT NULL,
	"version" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"finished" integer DEFAULT 0 NOT NULL,
	"pass_rate" text,
	"report" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_test_scenarios" (
	"id" serial PRIMARY KEY NOT NULL,
	"conversation_type_id" integer NOT NULL,
	"name" text NOT NULL,
	"definition" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversation_type_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"conversation_type_id" integer NOT NULL,
	"version" integer NOT NULL,
	"note" text,
	"snapshot" jsonb NOT NULL,
	"created_by_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "type_version" integer;--> statement-breakpoint
ALTER TABLE "agent_test_runs" ADD CONSTRAINT "agent_test_runs_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_test_scenarios" ADD CONSTRAINT "agent_test_scenarios_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_type_versions" ADD CONSTRAINT "conversation_type_versions_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_type_versions" ADD CONSTRAINT "conversation_type_versions_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_test_runs_conversation_type_id_index" ON "agent_test_runs" USING btree ("conversation_type_id");--> statement-breakpoint
CREATE INDEX "agent_test_scenarios_conversation_type_id_index" ON "agent_test_scenarios" USING btree ("conversation_type_id");--> statement-breakpoint
CREATE UNIQUE INDEX "conversation_type_versions_type_version_unique" ON "conversation_type_versions" USING btree ("conversation_type_id","version");