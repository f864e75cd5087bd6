DROP INDEX "events_merchant_idx";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "seq" bigint;--> statement-breakpoint
UPDATE "events" e SET "seq" = n.seq FROM (SELECT "id", row_number() OVER (PARTITION BY "merchant_id" ORDER BY "created_at", "id") AS seq FROM "events") n WHERE n."id" = e."id";--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_merchant_seq_unique" UNIQUE("merchant_id","seq");
