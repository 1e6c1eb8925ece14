CREATE TABLE "analytics_monthly" (
	"conversation_type_id" integer NOT NULL,
	"month" date NOT NULL,
	"messaging_account_id" integer NOT NULL,
	"is_call" boolean NOT NULL,
	"type_version" integer NOT NULL,
	"conversations" integer DEFAULT 0 NOT NULL,
	"max_phase_counts" integer[] DEFAULT '{0}' NOT NULL,
	"with_prospect_message" integer DEFAULT 0 NOT NULL,
	"replied" integer DEFAULT 0 NOT NULL,
	"within_minute" integer DEFAULT 0 NOT NULL,
	"agent_reply_buckets" integer[] DEFAULT '{0}' NOT NULL,
	"team_reply_buckets" integer[] DEFAULT '{0}' NOT NULL,
	CONSTRAINT "analytics_monthly_conversation_type_id_month_messaging_account_id_is_call_type_version_pk" PRIMARY KEY("conversation_type_id","month","messaging_account_id","is_call","type_version")
);
