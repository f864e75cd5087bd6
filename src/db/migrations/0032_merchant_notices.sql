ALTER TABLE "customer_mails" ALTER COLUMN "payment_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "customer_mails" ADD COLUMN "merchant_id" text;--> statement-breakpoint
ALTER TABLE "customer_mails" ADD COLUMN "title" text;--> statement-breakpoint
ALTER TABLE "customer_mails" ADD COLUMN "body" text;