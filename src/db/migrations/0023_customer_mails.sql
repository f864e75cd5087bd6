CREATE TABLE "customer_mails" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"to_address" text NOT NULL,
	"locale" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customer_mails_payment_kind_subject_unique" UNIQUE("payment_id","kind","subject")
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "receipt_email" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "receipt_locale" text;--> statement-breakpoint
CREATE INDEX "customer_mails_due_idx" ON "customer_mails" USING btree ("status","next_attempt_at");