/**
 * What an API process may reuse for a few seconds instead of reading it on every request:
 * keys that authenticated, with their merchant (merchant-auth.ts), and merchants' names for the
 * public lookup. Only rows that were found are kept, never misses, so a caller guessing keys or ids
 * cannot fill it. Expiry and revocation stored in a key's entry are checked again on every use.
 * When an operator changes anything kept here (revocation, rotation, scopes, the merchant's status,
 * name or commission), the entry goes:
 * - at once in the process that made the change: app.ts empties every cache on each admin write,
 *   before the answer leaves;
 * - within `ttlMs` (API_KEY_CACHE_SECONDS) in the deployment's other API processes.
 *
 * A read that started before a clear must not put back what the clear removed. Each `set` therefore
 * carries the generation in which its read began, and a `set` from an older generation is dropped.
 */
export interface TtlCache<T> {
  /** Call before reading from Postgres; pass the result to `set`. */
  generation(): number;
  get(key: string): T | undefined;
  set(key: string, value: T, generation: number): void;
  clear(): void;
  /** The cached value, or `load`'s (kept when found). */
  through(key: string, load: () => Promise<T | undefined>): Promise<T | undefined>;
}

export function createTtlCache<T>(options: { ttlMs: number; maxEntries: number; now?: () => number }): TtlCache<T> {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: T; at: number }>();
  let generation = 0;
  const cache: TtlCache<T> = {
    generation: () => generation,
    get(key) {
      if (options.ttlMs <= 0) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() - entry.at >= options.ttlMs) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value, readGeneration) {
      if (options.ttlMs <= 0 || readGeneration !== generation) return;
      // Bounded by the rows that exist; past the bound it simply starts over.
      if (entries.size >= options.maxEntries) entries.clear();
      entries.set(key, { value, at: now() });
    },
    clear() {
      generation++;
      entries.clear();
    },
    async through(key, load) {
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const readGeneration = generation;
      const found = await load();
      if (found !== undefined) cache.set(key, found, readGeneration);
      return found;
    },
  };
  return cache;
}
