import { pbkdf2Sync } from 'node:crypto';
import { HDKey, hdKeyToAccount, type HDAccount } from 'viem/accounts';

// The platform's one key comes from SETTLEMENT_MNEMONIC (BIP-39 seed, BIP-32/44 path, coin type 60
// as every EVM wallet uses, so an operator can recover the funds with any standard wallet): the
// treasury, m/44'/60'/0'/0/0, the wallet's first account on purpose (a standard wallet shows it
// first; on the dev chain it is anvil's funded account 0, which pays gas). Deposit addresses have no
// key: each is a forwarder of the network's sweeper, which only the treasury can have move money
// (docs/settlement.md).

export const TREASURY_PATH = "m/44'/60'/0'/0/0";

export interface SettlementKeys {
  treasury: HDAccount;
}

export function settlementKeys(mnemonic: string): SettlementKeys {
  const normalized = mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ');
  const master = HDKey.fromMasterSeed(pbkdf2Sync(normalized, 'mnemonic', 2048, 64, 'sha512'));
  return { treasury: hdKeyToAccount(master, { path: TREASURY_PATH }) };
}
