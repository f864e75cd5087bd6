import type { Address } from 'viem';
import { feeQuote, gasLimitFor, termsUnder } from '../chains/payouts';
import { depositSalt, encodeForward } from '../chains/sweeper';
import type { ChainSettings } from '../config';
import { findDepositAddresses } from '../db/queries/deposit-addresses';
import { insertPayoutItemsOnce } from '../db/queries/settlement-payouts';
import type { ChainClient } from '../chains/clients';
import type { Database } from '../db/client';
import { parseEvmAddress } from '../domain/evm-address';
import { findSimpleOrder } from '../db/queries/simple-orders';
import { insertPayoutsOnce, listPayouts, type NewPayout, type PayoutRow } from '../db/queries/payouts';
import { newPayoutId } from '../domain/ids';
import { orderFeeCharged } from '../domain/ledger';
import { orderPayoutSplit } from '../domain/order-fees';
import { writePosting } from '../db/queries/ledger';
import { payoutImpossible, type PayoutChains } from './payout-chains';

/**
 * For the simple API: a settled chain-verified order pays what it received to the
 * customer's wallet less its network fee (the simple API takes no commission; the fee pays the
 * treasury back for the gas). The treasury has the network's sweeper forward the customer's part
 * from the deposit in one call, priced when planned; the fee stays at the deposit until a sweep
 * takes it. Planned once: a retry returns the row already written.
 */
export async function planOrderPayouts(
  db: Database,
  chains: PayoutChains,
  code: string,
  settings: Pick<ChainSettings, 'networks'>,
): Promise<PayoutRow[]> {
  const planned = await listPayouts(db, code);
  if (planned.length > 0) return planned;
  const order = await findSimpleOrder(db, code);
  if (!order || order.status !== 'settled' || order.verification !== 'chain' || order.receivedMicro === null)
    throw payoutImpossible(`${code} is not a settled chain-verified order`);
  if (!order.chainDepositAddress) throw payoutImpossible(`${code} has no deposit address`);
  const token = tokenOf(chains, order.walletNetwork, order.walletCurrency);
  const to = parseEvmAddress(order.walletAddress);
  if (!to) throw payoutImpossible(`${order.walletAddress} is not an EVM address`);
  // The order's network fee, fixed when it was opened, is the treasury's (it pays the gas); the customer gets the rest.
  const split = orderPayoutSplit(order.receivedMicro, order.networkFeeMicro);
  const sweeper = settings.networks.find((n) => n.network === order.walletNetwork)?.sweeper;
  const index = (await findDepositAddresses(db, [order.chainDepositAddress]))[0]?.derivationIndex;
  if (!sweeper || index === undefined)
    throw payoutImpossible(`${order.chainDepositAddress} is not a forwarder of ${order.walletNetwork}'s sweeper`);
  const transfers =
    split.customerMicro > 0n
      ? await forwardedRow(
          chains.client(order.walletNetwork),
          { paymentId: code, network: order.walletNetwork, kind: 'customer' },
          { sweeper, index, treasury: chains.treasury(), asset: order.walletCurrency, token, to, amount: split.customerMicro },
        )
      : [];
  // The fee becomes revenue in the plan's own transaction: planned once, posted once.
  return db.transaction(async (tx) => {
    const rows = await insertPayoutsOnce(tx, transfers);
    for (const row of rows)
      await insertPayoutItemsOnce(tx, row.id, [
        { paymentId: code, depositAddress: order.chainDepositAddress, depositIndex: index, amountMicro: BigInt(row.amount) },
      ]);
    if (split.feeMicro > 0n)
      await writePosting(
        tx,
        orderFeeCharged({ transactionCode: code, asset: order.walletCurrency, network: order.walletNetwork, feeMicro: split.feeMicro }),
      );
    return rows;
  });
}

function tokenOf(chains: PayoutChains, network: string, asset: string): Address {
  const token = chains.client(network).tokens.find((t) => t.asset === asset)?.address;
  if (!token) throw payoutImpossible(`${asset} is not configured on ${network}`);
  return token;
}

/**
 * A payout as one call of the network's sweeper by the treasury (batched settlement): `forward` of
 * `amount` from a deposit to its payee, priced now. Nothing is ever sent to the deposit for gas.
 */
export async function forwardedRow(
  client: ChainClient,
  base: Pick<NewPayout, 'paymentId' | 'network' | 'exceptionId' | 'attempt' | 'kind'>,
  input: { sweeper: Address; index: number; treasury: Address; asset: string; token: Address; to: Address; amount: bigint },
): Promise<NewPayout[]> {
  const callData = encodeForward({ token: input.token, salt: depositSalt(BigInt(input.index)), to: input.to, amount: input.amount });
  const order = { token: input.token, to: input.sweeper, amount: input.amount, data: callData };
  const [quote, gasLimit] = await Promise.all([feeQuote(client), gasLimitFor(client, input.treasury, order)]);
  const terms = termsUnder(quote, gasLimit);
  return [
    {
      ...base,
      id: newPayoutId(),
      asset: input.asset,
      token: input.token,
      fromAddress: input.treasury,
      toAddress: input.sweeper,
      callData,
      amount: input.amount.toString(),
      gasLimit: terms.gasLimit.toString(),
      maxFeePerGas: terms.maxFeePerGas.toString(),
      maxPriorityFeePerGas: terms.maxPriorityFeePerGas.toString(),
    },
  ];
}
