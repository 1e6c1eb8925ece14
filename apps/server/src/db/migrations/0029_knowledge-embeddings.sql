DROP INDEX "knowledge_chunks_collection_id_index";--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD COLUMN "embedding" "bytea";--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD COLUMN "embedding_model" text;--> statement-breakpoint
CREATE INDEX "knowledge_chunks_collection_id_embedding_model_index" ON "knowledge_chunks" USING btree ("collection_id","embedding_model");