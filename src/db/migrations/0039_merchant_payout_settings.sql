ALTER TABLE "merchants" ADD COLUMN "payout_schedule" text DEFAULT 'instant' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "payout_minimum_micro" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "payout_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_payout_schedule_check" CHECK ("merchants"."payout_schedule" in ('instant', 'daily', 'weekly', 'manual'));--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_payout_minimum_check" CHECK ("merchants"."payout_minimum_micro" >= 0);