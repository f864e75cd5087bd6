CREATE SEQUENCE "public"."deposit_address_index" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE TABLE "deposit_addresses" (
	"derivation_index" integer PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"network" text NOT NULL,
	"payment_reference" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deposit_addresses_address_unique" UNIQUE("address"),
	CONSTRAINT "deposit_addresses_payment_reference_unique" UNIQUE("payment_reference")
);
