import { describe, expect, it } from 'vitest';
import { createKeyCache } from '../../src/api/plugins/key-cache';

describe('the authenticated-key cache (issue 14)', () => {
  it('keeps an entry for its TTL, then reads again', () => {
    let clock = 1_000;
    const cache = createKeyCache<string>({ ttlMs: 5_000, maxEntries: 10, now: () => clock });
    cache.set('h', 'key', cache.generation());
    expect(cache.get('h')).toBe('key');
    clock += 4_999;
    expect(cache.get('h')).toBe('key');
    clock += 1;
    expect(cache.get('h')).toBeUndefined();
  });

  it('never puts back what a clear removed: a read that began before the clear is dropped', () => {
    const cache = createKeyCache<string>({ ttlMs: 5_000, maxEntries: 10 });
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
    const off = createKeyCache<string>({ ttlMs: 0, maxEntries: 10 });
    off.set('h', 'key', off.generation());
    expect(off.get('h')).toBeUndefined();
    const small = createKeyCache<number>({ ttlMs: 5_000, maxEntries: 3 });
    for (let i = 0; i < 3; i++) small.set(`h${i}`, i, small.generation());
    expect(small.get('h2')).toBe(2);
    small.set('h3', 3, small.generation());
    expect(small.get('h0')).toBeUndefined();
    expect(small.get('h3')).toBe(3);
  });
});
