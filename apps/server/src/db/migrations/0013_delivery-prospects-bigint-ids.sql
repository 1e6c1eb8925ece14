ALTER TABLE "prospects" DROP CONSTRAINT "prospects_messagingAccountId_externalId_unique";--> statement-breakpoint
ALTER TABLE "channel_messages" ALTER COLUMN "message_id" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "outbox" ALTER COLUMN "message_id" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "prospects" ADD CONSTRAINT "prospects_account_external_simulated_unique" UNIQUE("messaging_account_id","external_id","simulated");