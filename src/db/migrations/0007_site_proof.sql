ALTER TABLE "sites" DROP CONSTRAINT "sites_origin_unique";--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "status" text DEFAULT 'pending_verification' NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "verification_token" text DEFAULT ('svcsv_' || md5(gen_random_uuid()::text)) NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "sites_origin_merchant_uidx" ON "sites" USING btree ("origin","merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sites_connected_origin_uidx" ON "sites" USING btree ("origin") WHERE status = 'connected';