ALTER TABLE "conversation_types" ADD COLUMN "is_public" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- Existing '[D] …' working copies were never meant for visitors (issue 12): they start private.
UPDATE "conversation_types" SET "is_public" = false WHERE "title" LIKE '[D] %';
