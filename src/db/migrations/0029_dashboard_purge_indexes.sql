CREATE INDEX "dashboard_audit_log_created_idx" ON "dashboard_audit_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "dashboard_email_tokens_expiry_idx" ON "dashboard_email_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "dashboard_invitations_expiry_idx" ON "dashboard_invitations" USING btree ("expires_at");