import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Database } from '../db/client';
import type { BusinessLog } from '../logging';
import type { ProviderRegistry } from '../providers/registry';

/** What every use case of the payment engine is built from; the faces (v1, plugin, links, simple API) share one. */
export interface PaymentContext {
  config: Config;
  db: Database;
  temporal: Client;
  providers: ProviderRegistry;
  now: () => Date;
  /** Derived from SETTLEMENT_MNEMONIC by the entry point (the API never holds the keys); null or absent without one. */
  treasuryAddress?: string | null;
  /** Business events: one line per transition a use case makes; silent when absent. */
  log?: BusinessLog;
}
