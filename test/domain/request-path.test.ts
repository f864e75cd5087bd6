import { describe, expect, it } from 'vitest';
import { pathOf } from '../../src/domain/request-path';

describe('pathOf', () => {
  it('keeps what comes before the first question mark, and a target without one whole', () => {
    expect(pathOf('/api/v1/payments?status=completed&api_key=x')).toBe('/api/v1/payments');
    expect(pathOf('/a?b?c')).toBe('/a');
    expect(pathOf('/a?')).toBe('/a');
    expect(pathOf('/api/v1/payments')).toBe('/api/v1/payments');
    expect(pathOf('')).toBe('');
  });
});
