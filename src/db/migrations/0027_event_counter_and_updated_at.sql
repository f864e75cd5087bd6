CREATE TABLE "merchant_event_seqs" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "merchant_event_seqs" ("merchant_id", "seq") SELECT "merchant_id", max("seq") FROM "events" GROUP BY "merchant_id";

--> statement-breakpoint
CREATE INDEX "checkout_sessions_updated_idx" ON "checkout_sessions" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "simple_orders_updated_idx" ON "simple_orders" USING btree ("updated_at");
