CREATE TABLE "conversation_type_knowledge" (
	"conversation_type_id" integer NOT NULL,
	"collection_id" integer NOT NULL,
	CONSTRAINT "conversation_type_knowledge_conversation_type_id_collection_id_pk" PRIMARY KEY("conversation_type_id","collection_id")
);
--> statement-breakpoint
CREATE TABLE "knowledge_chunks" (
	"id" serial PRIMARY KEY NOT NULL,
	"source_id" integer NOT NULL,
	"collection_id" integer NOT NULL,
	"position" integer NOT NULL,
	"title" text,
	"url" text,
	"text" text NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, '') || ' ' || text)) STORED NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_collections" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_message_passages" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"conversation_id" integer NOT NULL,
	"passages" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_sources" (
	"id" serial PRIMARY KEY NOT NULL,
	"collection_id" integer NOT NULL,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"url" text,
	"question" text,
	"answer" text,
	"file_name" text,
	"mime_type" text,
	"content" "bytea",
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"items" integer DEFAULT 0 NOT NULL,
	"refreshed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversation_type_knowledge" ADD CONSTRAINT "conversation_type_knowledge_conversation_type_id_conversation_types_id_fk" FOREIGN KEY ("conversation_type_id") REFERENCES "public"."conversation_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_type_knowledge" ADD CONSTRAINT "conversation_type_knowledge_collection_id_knowledge_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."knowledge_collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_source_id_knowledge_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."knowledge_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_collection_id_knowledge_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."knowledge_collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_message_passages" ADD CONSTRAINT "knowledge_message_passages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_message_passages" ADD CONSTRAINT "knowledge_message_passages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_sources" ADD CONSTRAINT "knowledge_sources_collection_id_knowledge_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."knowledge_collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_type_knowledge_collection_id_index" ON "conversation_type_knowledge" USING btree ("collection_id");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_source_id_index" ON "knowledge_chunks" USING btree ("source_id");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_collection_id_index" ON "knowledge_chunks" USING btree ("collection_id");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_search_idx" ON "knowledge_chunks" USING gin ("search");--> statement-breakpoint
CREATE INDEX "knowledge_message_passages_conversation_id_index" ON "knowledge_message_passages" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "knowledge_sources_collection_id_index" ON "knowledge_sources" USING btree ("collection_id");