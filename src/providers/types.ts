import type { ProviderEvent } from '../domain/provider-fact';

// The seam between the checkout engine and an on-ramp. The sandbox implements it; a real
// provider adapter implements the same interface and nothing else changes.

export interface ProviderPaymentRequest {
  /** Our canonical payment id (or simple-API transaction code): the provider's idempotency key. */
  reference: string;
  /** Fiat the customer pays, as a decimal string with the currency's decimals. */
  sourceAmount: string;
  sourceCurrency: string;
  destinationAsset: string;
  network: string;
  walletAddress: string;
  countryCode: string;
  customerEmail?: string | undefined;
  /** Where the provider sends its signed callbacks. */
  callbackUrl: string;
  /** Where the provider sends the customer back after its page. */
  returnUrl: string;
}

export interface ProviderPayment {
  providerPaymentId: string;
  /** The provider's own payment page the customer is sent to. */
  redirectUrl: string;
  status: string;
}

/** A crypto rail (simple API): where the customer sends `amount` of `asset` on `network`. */
export interface ProviderDepositRequest {
  /** The simple-API transaction code: one open deposit per reference. */
  reference: string;
  asset: string;
  network: string;
  /** 6 decimals. */
  amount: string;
  /** What is forwarded to the customer's own wallet. */
  destinationAsset: string;
  destinationNetwork: string;
  walletAddress: string;
  callbackUrl: string;
}

export interface ProviderDeposit {
  depositId: string;
  address: string;
  asset: string;
  network: string;
  amount: string;
  expiresAt: string;
}

export interface ProviderQuote {
  /** Stablecoin amount the provider expects to deliver, 6 decimals. */
  destinationAmount: string;
  rate: string;
}

export type { ProviderEvent, ProviderEventType } from '../domain/provider-fact';

/**
 * The one way an adapter reports a failed call, so the engine never knows a provider's own error
 * classes: `retryable` says whether the same request may succeed later (timeouts, 5xx, 429), and
 * the activities and the API turn it into a Temporal failure or an error answer.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export type CallbackVerification =
  { ok: true; event: ProviderEvent } | { ok: false; reason: 'missing_signature' | 'bad_signature' | 'stale_timestamp' | 'malformed_body' };

export interface ProviderAdapter {
  readonly name: string;
  readonly railType: 'fiat_to_crypto';
  /** Origin of the provider's payment pages, where the hosted page sends the customer. */
  readonly pageOrigin: string;
  servesCountry(countryCode: string): boolean;
  supportsCurrency(currency: string): boolean;
  quote(input: { sourceAmount: string; sourceCurrency: string; destinationAsset: string; network: string }): Promise<ProviderQuote>;
  /** Idempotent per reference: asking twice returns the same provider payment. Throws ProviderError. */
  createPayment(request: ProviderPaymentRequest): Promise<ProviderPayment>;
  /**
   * Closes a payment the customer may no longer pay (its session ended). Idempotent.
   * `closed: false` when the provider had already taken the money (the payment is processing or
   * succeeded): its success still comes, and the engine records it as an exception. Throws
   * ProviderError (retryable or not) when the provider could not be asked.
   */
  cancelPayment(providerPaymentId: string): Promise<{ closed: boolean; status: string }>;
  /** Crypto rails, where the provider offers them: a deposit address, idempotent per reference and terms. */
  createDeposit?(request: ProviderDepositRequest): Promise<ProviderDeposit>;
  /** Closes a deposit the customer abandoned for another rail; like cancelPayment. */
  cancelDeposit?(depositId: string): Promise<{ closed: boolean; status: string }>;
  /** A sandbox's explorer links point at its own transaction page; real providers leave this out. */
  explorerUrl?(hash: string): string;
  /** Checks the signature and timestamp of a callback on its raw body, then parses it. */
  verifyCallback(rawBody: string, headers: Record<string, string | string[] | undefined>, now: Date): CallbackVerification;
}
