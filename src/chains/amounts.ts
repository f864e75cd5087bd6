import { AmountError, formatCrypto, parseCrypto } from '../domain/money';

// Token amounts on chain are integers in the token's own units. Ours are micro units (6 decimals,
// as every amount of the API), which USDC and USDT use on every network we settle on; a token with other
// decimals is converted exactly or refused, never rounded.

export const STABLECOIN_DECIMALS = 6;

/** A decimal string ("24.750000") or number to micro units, refusing more than 6 decimals. */
export const parseMicro = (value: string): bigint => parseCrypto(value);

/** Micro units to the contract's decimal string with exactly 6 decimals. */
export const formatMicro = (micro: bigint): string => formatCrypto(micro);

export function tokenUnitsToMicro(units: bigint, decimals: number): bigint {
  if (decimals === STABLECOIN_DECIMALS) return units;
  if (decimals < STABLECOIN_DECIMALS) return units * 10n ** BigInt(STABLECOIN_DECIMALS - decimals);
  const scale = 10n ** BigInt(decimals - STABLECOIN_DECIMALS);
  if (units % scale !== 0n) throw new AmountError(`${units} units of a ${decimals}-decimal token are not a whole number of micro units`);
  return units / scale;
}

export function microToTokenUnits(micro: bigint, decimals: number): bigint {
  if (decimals >= STABLECOIN_DECIMALS) return micro * 10n ** BigInt(decimals - STABLECOIN_DECIMALS);
  const scale = 10n ** BigInt(STABLECOIN_DECIMALS - decimals);
  if (micro % scale !== 0n) throw new AmountError(`${micro} micro units do not fit a ${decimals}-decimal token`);
  return micro / scale;
}
