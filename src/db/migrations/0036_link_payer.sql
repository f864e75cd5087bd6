ALTER TABLE "checkout_sessions" ADD COLUMN "pay_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "deposit_shown_at" timestamp with time zone;