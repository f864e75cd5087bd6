CREATE TABLE "sites" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"origin" text NOT NULL,
	"site_url" text NOT NULL,
	"callback_url" text NOT NULL,
	"platform" text NOT NULL,
	"plugin_version" text NOT NULL,
	"webhook_secret_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sites_origin_unique" UNIQUE("origin")
);
--> statement-breakpoint
CREATE TABLE "payment_links" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"destination_asset" text NOT NULL,
	"network" text NOT NULL,
	"description" text,
	"merchant_order_id" text,
	"paid_session_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_links_amount_check" CHECK ("payment_links"."amount_minor" > 0)
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "site_id" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "order_key" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "payment_link_id" text;--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_links" ADD CONSTRAINT "payment_links_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sites_merchant_idx" ON "sites" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "payment_links_merchant_idx" ON "payment_links" USING btree ("merchant_id");