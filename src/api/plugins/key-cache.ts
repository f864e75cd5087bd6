/**
 * Authenticated API keys by hash, for a few seconds (issue 14: the key's row and its merchant were
 * read on every merchant request). Only keys that authenticated are kept, never unknown hashes, so
 * a caller guessing keys cannot fill it. Expiry and revocation stored in an entry are checked again
 * on every use. When an operator changes anything in it (revocation, rotation, scopes, the
 * merchant's status, name or commission), the entry goes:
 * - at once in the process that made the change: app.ts empties the cache on every admin write,
 *   before the answer leaves;
 * - within `ttlMs` (API_KEY_CACHE_SECONDS) in the deployment's other API processes.
 *
 * A read that started before a clear must not put back what the clear removed. Each `set` therefore
 * carries the generation in which its read began, and a `set` from an older generation is dropped.
 */
export interface KeyCache<T> {
  /** Call before reading from Postgres; pass the result to `set`. */
  generation(): number;
  get(hash: string): T | undefined;
  set(hash: string, value: T, generation: number): void;
  clear(): void;
}

export function createKeyCache<T>(options: { ttlMs: number; maxEntries: number; now?: () => number }): KeyCache<T> {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: T; at: number }>();
  let generation = 0;
  return {
    generation: () => generation,
    get(hash) {
      if (options.ttlMs <= 0) return undefined;
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (now() - entry.at >= options.ttlMs) {
        entries.delete(hash);
        return undefined;
      }
      return entry.value;
    },
    set(hash, value, readGeneration) {
      if (options.ttlMs <= 0 || readGeneration !== generation) return;
      // Bounded by the keys that exist; past the bound it simply starts over.
      if (entries.size >= options.maxEntries) entries.clear();
      entries.set(hash, { value, at: now() });
    },
    clear() {
      generation++;
      entries.clear();
    },
  };
}
