CREATE TABLE "payout_items" (
	"payout_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"deposit_address" text,
	"deposit_index" integer,
	"amount" numeric(78, 0) NOT NULL,
	CONSTRAINT "payout_items_payout_id_payment_id_pk" PRIMARY KEY("payout_id","payment_id")
);
--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "call_data" text;--> statement-breakpoint
ALTER TABLE "payout_items" ADD CONSTRAINT "payout_items_payout_id_payouts_id_fk" FOREIGN KEY ("payout_id") REFERENCES "public"."payouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payout_items_payment_idx" ON "payout_items" USING btree ("payment_id");