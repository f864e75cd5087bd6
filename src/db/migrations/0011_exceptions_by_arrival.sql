ALTER TABLE "events" DROP CONSTRAINT "events_payment_type_unique";--> statement-breakpoint
ALTER TABLE "payment_exceptions" DROP CONSTRAINT "payment_exceptions_payment_kind_unique";--> statement-breakpoint
DROP INDEX "payment_exceptions_status_idx";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "subject" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD COLUMN "arrival_key" text DEFAULT 'payment' NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "payment_exceptions_payment_idx" ON "payment_exceptions" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "payment_exceptions_status_idx" ON "payment_exceptions" USING btree ("status","created_at");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_payment_type_subject_unique" UNIQUE("payment_id","type","subject");--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD CONSTRAINT "payment_exceptions_arrival_unique" UNIQUE("payment_id","kind","arrival_key");