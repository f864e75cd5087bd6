CREATE TABLE "dashboard_recovery_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "dashboard_recovery_codes" ADD CONSTRAINT "dashboard_recovery_codes_user_id_dashboard_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."dashboard_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dashboard_recovery_codes_user_idx" ON "dashboard_recovery_codes" USING btree ("user_id");