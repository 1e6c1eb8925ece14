CREATE TABLE "conversation_search" (
	"conversation_id" integer PRIMARY KEY NOT NULL,
	"doc" "tsvector" NOT NULL
);
--> statement-breakpoint
DROP INDEX "messages_search_index";--> statement-breakpoint
ALTER TABLE "conversation_search" ADD CONSTRAINT "conversation_search_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_search_doc_index" ON "conversation_search" USING gin ("doc");