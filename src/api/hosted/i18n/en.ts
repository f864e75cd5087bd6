// The hosted pages' English text: the catalogue every other language follows key for key (a test
// checks it). Other helpers' page text (exceptions, payouts) belongs here too, under its own key.
export const en = {
  common: {
    theMerchant: 'the merchant',
    secureCheckout: 'Secure checkout',
    expiresIn: 'Expires in',
    openUntil: 'open until {{date}}',
    copy: 'Copy',
    copied: 'Copied',
    notFoundTitle: 'Checkout not found',
    notFoundBody: 'This checkout link is not valid. Please return to the merchant.',
    notAllowedTitle: 'Not allowed',
    notAllowedBody: 'This action must come from the payment page.',
    paymentsUnavailable: 'Payments are temporarily unavailable. Please try again later.',
    tryAgainSoon: 'Please try again in a moment.',
  },
  checkout: {
    title: 'Pay {{merchant}}',
    settlesAs: 'Settles as',
    settlesAsValue: '{{asset}} on {{network}}',
    paidThrough: 'Paid through',
    reference: 'Reference',
    pay: 'Pay {{amount}}',
    payFromWallet: 'Pay from your wallet ({{asset}} on {{network}})',
    cancel: 'Cancel and return to {{merchant}}',
    returnTo: 'Return to {{merchant}}',
    backTo: 'Back to {{merchant}}',
    redirecting: 'Taking you back to {{merchant}}…',
    continueWithPartner: 'Continue with the payment partner',
    tryAgain: 'Try again',
    cannotPay: 'This checkout can no longer be paid.',
    cannotCancel: 'This checkout can no longer be canceled.',
    couldNotStart: 'The payment could not be started.',
    couldNotPrepareWallet: 'The wallet payment could not be prepared.',
    couldNotCancel: 'The checkout could not be canceled.',
    states: {
      pending: { title: 'Ready to pay', body: 'You will be taken to our payment partner to pay by card or bank.' },
      awaiting: { title: 'Confirming your payment', body: 'We are waiting for the payment partner to confirm your payment. This page updates by itself.' },
      processing: { title: 'Payment in progress', body: 'Your payment is being confirmed. This page updates by itself.' },
      completed: { title: 'Payment received', body: 'Thank you. The merchant has been notified.' },
      failed: { title: 'Payment failed', body: 'The payment was declined. No money was taken.' },
      failedRetry: { title: 'Payment declined', body: 'The payment was declined. No money was taken. You can try again.' },
      expired: { title: 'Checkout expired', body: 'This checkout is no longer open. Please return to the merchant to start again.' },
      canceled: { title: 'Checkout canceled', body: 'You canceled this checkout. No money was taken.' },
      test: { title: 'Test-mode record', body: 'This checkout was created in test mode and is read-only. It cannot be paid.' },
    },
    wallet: {
      label: 'Pay from your wallet',
      sendExactly: 'Send exactly {{amount}} {{asset}} on {{network}}',
      qr: 'QR code of the transfer: {{amount}} {{asset}} to the deposit address',
      address: 'Deposit address',
      amount: 'Amount',
      copyAddress: 'Copy the deposit address',
      copyAmount: 'Copy the amount',
      sendOnly: 'Send only {{asset}} on {{network}} (chain id {{chainId}}), before {{date}}. This page updates once the transfer is confirmed.',
    },
  },
};

/** Every catalogue has exactly the English keys, each a string. */
export type Catalogue = { [K in keyof typeof en]: Shape<(typeof en)[K]> };
type Shape<T> = T extends string ? string : { [K in keyof T]: Shape<T[K]> };
