-- Decisions §12: an exception is money that arrived or was claimed, so its amount is positive
-- (domain/exceptions.ts refuses the rest before writing). A database that already holds a row
-- of amount <= 0 refuses this migration: `select id, kind, amount_micro from payment_exceptions
-- where amount_micro <= 0` names them for an operator to look at first.
ALTER TABLE "payment_exceptions" ADD CONSTRAINT "payment_exceptions_amount_check" CHECK ("payment_exceptions"."amount_micro" > 0);