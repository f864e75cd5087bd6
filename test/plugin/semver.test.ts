import { describe, expect, it } from 'vitest';
import { compareSemVer, isAtLeastVersion, parseSemVer } from '../../src/domain/semver';

describe('plugin versions', () => {
  it.each(['1.1.0', '1.1.1', '1.2.0', '1.10.0', '2.0.0', '1.1.0+build.5', '1.1.1-rc.1', '10.0.0'])('accepts %s', (v) =>
    expect(isAtLeastVersion(v, '1.1.0')).toBe(true),
  );
  it.each(['1.0.9', '1.0.10', '0.9.9', '1.1.0-beta.1', '1.1.0-rc.9', '1.1', '1', 'v1.1.0', '01.1.0', '1.1.0 ', '', 'latest', '1.1.0-'])(
    'refuses %j',
    (v) => expect(isAtLeastVersion(v, '1.1.0')).toBe(false),
  );
  it('orders pre-releases by semver precedence', () => {
    const order = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 1; i < order.length; i++) {
      expect(compareSemVer(parseSemVer(order[i - 1]!)!, parseSemVer(order[i]!)!), `${order[i - 1]} < ${order[i]}`).toBeLessThan(0);
      expect(compareSemVer(parseSemVer(order[i]!)!, parseSemVer(order[i - 1]!)!)).toBeGreaterThan(0);
    }
    expect(compareSemVer(parseSemVer('1.2.3+a')!, parseSemVer('1.2.3+b')!)).toBe(0);
  });
});
