CREATE TABLE "merchant_event_seqs" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "merchant_event_seqs" ("merchant_id", "seq") SELECT "merchant_id", max("seq") FROM "events" GROUP BY "merchant_id";
