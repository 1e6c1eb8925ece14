CREATE TABLE "conversation_analyses" (
	"conversation_id" integer PRIMARY KEY NOT NULL,
	"summary" text NOT NULL,
	"outcome" text NOT NULL,
	"score" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversation_analyses" ADD CONSTRAINT "conversation_analyses_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_analyses_outcome_index" ON "conversation_analyses" USING btree ("outcome");