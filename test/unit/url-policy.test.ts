import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkResolvedAddresses, checkUrlShape, isPublicAddress, isRelatedHost } from '../../src/domain/url-policy';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (a) => expect(isPublicAddress(a)).toBe(true));
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.100.100.200',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    'not-an-ip',
  ])('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));

  it('refuses every 10/8, 127/8 and 192.168/16 address', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (a, b, c) => {
        expect(isPublicAddress(`10.${a}.${b}.${c}`)).toBe(false);
        expect(isPublicAddress(`127.${a}.${b}.${c}`)).toBe(false);
        expect(isPublicAddress(`192.168.${b}.${c}`)).toBe(false);
        expect(isPublicAddress(`::ffff:10.${a}.${b}.${c}`)).toBe(false);
      }),
    );
  });
});

describe('checkUrlShape', () => {
  it('accepts https on a public name, and anything http(s) when private URLs are allowed', () => {
    expect(checkUrlShape('https://api.shop.example/hooks', { allowPrivate: false }).ok).toBe(true);
    expect(checkUrlShape('http://127.0.0.1:9000/x', { allowPrivate: true }).ok).toBe(true);
    expect(checkUrlShape('ftp://x.example', { allowPrivate: true }).ok).toBe(false);
  });
  it('normalises numeric hosts before judging them', () => {
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://127.1/', 'https://[0:0:0:0:0:ffff:7f00:1]/']) {
      expect(checkUrlShape(url, { allowPrivate: false }).ok).toBe(false);
    }
  });
});

describe('checkResolvedAddresses', () => {
  it('refuses a host when any answer is private (DNS rebinding)', () => {
    expect(checkResolvedAddresses(['8.8.8.8', '10.0.0.1'], { allowPrivate: false })).toMatchObject({ ok: false });
    expect(checkResolvedAddresses(['8.8.8.8'], { allowPrivate: false })).toBeNull();
    expect(checkResolvedAddresses([], { allowPrivate: false })).toMatchObject({ ok: false });
    expect(checkResolvedAddresses(['127.0.0.1'], { allowPrivate: true })).toBeNull();
  });
});

describe('isRelatedHost', () => {
  it('relates the same host and hosts of one registrable domain, by the public suffix list', () => {
    expect(isRelatedHost('https://api.shop.example.com/cb', 'https://www.shop.example.com')).toBe(true);
    expect(isRelatedHost('https://shop.example.com/cb', 'https://shop.example.com')).toBe(true);
    expect(isRelatedHost('https://pay.myshop.co.uk/cb', 'https://www.myshop.co.uk')).toBe(true);
    expect(isRelatedHost('https://evil.co.uk/cb', 'https://www.myshop.co.uk')).toBe(false);
    expect(isRelatedHost('https://shop-example.com/cb', 'https://www.shop.example.com')).toBe(false);
    expect(isRelatedHost('https://a.github.io/cb', 'https://b.github.io')).toBe(false);
  });
});
