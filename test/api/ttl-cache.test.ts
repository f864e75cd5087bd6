import { describe, expect, it } from 'vitest';
import { createTtlCache } from '../../src/api/plugins/ttl-cache';

describe("the API process's short-lived cache of keys and merchant names", () => {
  it('keeps an entry for its TTL, then reads again', () => {
    let clock = 1_000;
    const cache = createTtlCache<string>({ ttlMs: 5_000, maxEntries: 10, now: () => clock });
    cache.set('h', 'key', cache.generation());
    expect(cache.get('h')).toBe('key');
    clock += 4_999;
    expect(cache.get('h')).toBe('key');
    clock += 1;
    expect(cache.get('h')).toBeUndefined();
  });

  it('never puts back what a clear removed: a read that began before the clear is dropped', () => {
    const cache = createTtlCache<string>({ ttlMs: 5_000, maxEntries: 10 });
    const before = cache.generation();
    cache.set('h', 'valid', before);
    // An admin write (a revocation) lands while another request is still reading the key's old row.
    const slowRead = cache.generation();
    cache.clear();
    expect(cache.get('h')).toBeUndefined();
    cache.set('h', 'stale row', slowRead);
    expect(cache.get('h')).toBeUndefined();
    cache.set('h', 'fresh row', cache.generation());
    expect(cache.get('h')).toBe('fresh row');
  });

  it('is off at a TTL of 0, and bounded in size', () => {
    const off = createTtlCache<string>({ ttlMs: 0, maxEntries: 10 });
    off.set('h', 'key', off.generation());
    expect(off.get('h')).toBeUndefined();
    const small = createTtlCache<number>({ ttlMs: 5_000, maxEntries: 3 });
    for (let i = 0; i < 3; i++) small.set(`h${i}`, i, small.generation());
    expect(small.get('h2')).toBe(2);
    small.set('h3', 3, small.generation());
    expect(small.get('h0')).toBeUndefined();
    expect(small.get('h3')).toBe(3);
  });

  it('reads through: a hit skips the load, a miss is not kept, a load overtaken by a clear is not kept', async () => {
    const cache = createTtlCache<string>({ ttlMs: 5_000, maxEntries: 10 });
    const loads: string[] = [];
    const load = (value: string | undefined) => async () => {
      loads.push(String(value));
      return value;
    };
    expect(await cache.through('m1', load(undefined))).toBeUndefined();
    expect(await cache.through('m1', load('Shop'))).toBe('Shop');
    expect(await cache.through('m1', load('other'))).toBe('Shop');
    expect(loads).toEqual(['undefined', 'Shop']);
    let release!: () => void;
    const slow = cache.through('m2', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return 'old name';
    });
    cache.clear();
    release();
    expect(await slow).toBe('old name');
    expect(cache.get('m2')).toBeUndefined();
  });
});
