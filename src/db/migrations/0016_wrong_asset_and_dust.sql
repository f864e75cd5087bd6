ALTER TABLE "chain_credits" ALTER COLUMN "asset" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD COLUMN "token" text;--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD COLUMN "asset" text;