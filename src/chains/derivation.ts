import { pbkdf2Sync } from 'node:crypto';
import { toHex, type Address } from 'viem';
import { HDKey, hdKeyToAccount, privateKeyToAccount, type HDAccount, type PrivateKeyAccount } from 'viem/accounts';

// Every key of the platform comes from SETTLEMENT_MNEMONIC (BIP-39 seed, BIP-32/44 paths, coin type
// 60 as every EVM wallet uses, so an operator can recover the funds with any standard wallet):
//   treasury              m/44'/60'/0'/0/0      BIP-44 account 0, its first address
//   deposit address i     m/44'/60'/1'/0/i      BIP-44 account 1, one address per payment
// The treasury is the wallet's first account on purpose (a standard wallet shows it first; on the
// dev chain it is anvil's funded account 0, which pays gas). Deposits live in their own account so
// that no index allocated in Postgres can ever land on the treasury.

export const TREASURY_PATH = "m/44'/60'/0'/0/0";
export const DEPOSIT_BRANCH = "m/44'/60'/1'/0";
/** Non-hardened BIP-32 indices stop below 2^31. */
export const MAX_DEPOSIT_INDEX = 2 ** 31 - 1;

export const depositPath = (index: number) => `${DEPOSIT_BRANCH}/${checkedIndex(index)}` as const;

export interface SettlementKeys {
  treasury: HDAccount;
  /** The signing account of deposit address `index` (payouts move the money on from it). */
  depositAccount: (index: number) => PrivateKeyAccount;
  depositAddress: (index: number) => Address;
}

export function settlementKeys(mnemonic: string): SettlementKeys {
  // The BIP-39 seed is computed once here: viem's mnemonicToAccount would redo the 2048 PBKDF2 rounds
  // for every address, and a watcher asks for many.
  const normalized = mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ');
  const master = HDKey.fromMasterSeed(pbkdf2Sync(normalized, 'mnemonic', 2048, 64, 'sha512'));
  // The deposit branch is derived once: each address is then one child step instead of five, and each
  // step computes a public key (an elliptic-curve multiplication). Payout signers and new deposit
  // addresses are derived per payment.
  const branch = master.derive(DEPOSIT_BRANCH);
  const depositAccount = (index: number) => privateKeyToAccount(toHex(branch.deriveChild(checkedIndex(index)).privateKey!));
  return {
    treasury: hdKeyToAccount(master, { path: TREASURY_PATH }),
    depositAccount,
    depositAddress: (index) => depositAccount(index).address,
  };
}

function checkedIndex(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index > MAX_DEPOSIT_INDEX) {
    throw new RangeError(`deposit index must be an integer in 0..${MAX_DEPOSIT_INDEX}`);
  }
  return index;
}
