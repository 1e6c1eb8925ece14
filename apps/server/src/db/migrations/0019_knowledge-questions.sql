CREATE TABLE "knowledge_questions" (
	"id" serial PRIMARY KEY NOT NULL,
	"conversation_id" integer NOT NULL,
	"conversation_type_id" integer,
	"question" text NOT NULL,
	"question_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"faq_source_id" integer
);
--> statement-breakpoint
ALTER TABLE "knowledge_sources" ADD COLUMN "refresh_schedule" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_questions" ADD CONSTRAINT "knowledge_questions_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_questions" ADD CONSTRAINT "knowledge_questions_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_questions" ADD CONSTRAINT "knowledge_questions_faq_source_id_knowledge_sources_id_fk" FOREIGN KEY ("faq_source_id") REFERENCES "public"."knowledge_sources"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_questions_question_key_index" ON "knowledge_questions" USING btree ("question_key");--> statement-breakpoint
CREATE INDEX "knowledge_questions_conversation_id_index" ON "knowledge_questions" USING btree ("conversation_id");