import { describe, expect, it } from 'vitest';
import { checkResolvedAddresses, checkUrlShape, isPublicAddress } from '../../src/domain/url-policy';
import { checkWebhookTarget } from '../../src/webhooks/target-policy';

// Every way of writing an address that reaches our own network is refused, on
// each path a target takes: the URL literal at registration, the registration check with DNS, and the
// resolved answers at delivery. One row per form; the kind names the range it falls in.

const refused: [kind: string, address: string][] = [
  ['IPv4 loopback', '127.0.0.1'],
  ['IPv4 loopback, elsewhere in 127/8', '127.10.20.30'],
  ['private 10/8', '10.1.2.3'],
  ['private 172.16/12', '172.31.255.254'],
  ['private 192.168/16', '192.168.0.1'],
  ['link-local', '169.254.1.1'],
  ['metadata (AWS, GCP, Azure)', '169.254.169.254'],
  ['metadata (Alibaba, in CGNAT)', '100.100.100.200'],
  ['CGNAT 100.64/10', '100.64.0.1'],
  ['unspecified IPv4', '0.0.0.0'],
  ['this network 0/8', '0.1.2.3'],
  ['broadcast', '255.255.255.255'],
  ['IPv4 multicast', '239.1.2.3'],
  ['documentation TEST-NET-1', '192.0.2.10'],
  ['documentation TEST-NET-2', '198.51.100.10'],
  ['documentation TEST-NET-3', '203.0.113.10'],
  ['benchmarking 198.18/15', '198.18.0.1'],
  ['reserved 240/4', '240.0.0.1'],
  ['IPv6 loopback', '::1'],
  ['IPv6 unspecified', '::'],
  ['IPv6 link-local', 'fe80::1'],
  ['IPv6 unique local', 'fc00::1'],
  ['IPv6 metadata (AWS)', 'fd00:ec2::254'],
  ['IPv6 multicast', 'ff02::1'],
  ['IPv6 documentation', '2001:db8::1'],
  ['IPv6 discard', '100::1'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ['IPv4-mapped private', '::ffff:10.0.0.1'],
  ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
  ['IPv4-mapped, hex form', '::ffff:7f00:1'],
  ['IPv4-compatible loopback', '::7f00:1'],
  ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
  ['IPv4-compatible private', '::a00:1'],
  ['IPv4-compatible, even of a public IPv4', '::808:808'],
  ['IPv4-translated (RFC 6145)', '::ffff:0:7f00:1'],
  ['NAT64 well-known prefix 64:ff9b::/96, loopback', '64:ff9b::7f00:1'],
  ['NAT64 well-known prefix, metadata', '64:ff9b::a9fe:a9fe'],
  ['NAT64 well-known prefix, even of a public IPv4', '64:ff9b::808:808'],
  ['NAT64 local-use prefix 64:ff9b:1::/48', '64:ff9b:1::a00:1'],
  ['6to4 2002::/16, loopback', '2002:7f00:1::1'],
  ['6to4, of a public IPv4', '2002:808:808::1'],
  ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['ORCHIDv2', '2001:20::1'],
  ['outside 2000::/3', '4000::1'],
];

const accepted: [kind: string, address: string][] = [
  ['public IPv4', '8.8.8.8'],
  ['public IPv4, another', '1.1.1.1'],
  ['public IPv6', '2606:4700:4700::1111'],
  ['public IPv6, another', '2a00:1450:4001:80b::200e'],
  ['IPv4-mapped public IPv4', '::ffff:8.8.8.8'],
];

const literal = (address: string) => (address.includes(':') ? `https://[${address}]/hooks` : `https://${address}/hooks`);

describe('the URL policy on every form of address', () => {
  it.each(refused)('refuses %s (%s) as an address, a URL literal, a registration and a resolved answer', async (_kind, address) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(checkUrlShape(literal(address), { allowPrivate: false })).toMatchObject({ ok: false });
    expect(await checkWebhookTarget(literal(address), false)).toMatch(/private or local address/);
    expect(checkResolvedAddresses(['8.8.8.8', address], { allowPrivate: false })).toMatchObject({ ok: false });
  });

  it.each(accepted)('accepts %s (%s)', (_kind, address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(checkUrlShape(literal(address), { allowPrivate: false })).toMatchObject({ ok: true });
    expect(checkResolvedAddresses([address], { allowPrivate: false })).toBeNull();
  });

  it('refuses the forms the attack run used, written as URLs as a client would', () => {
    for (const url of [
      'https://[::7f00:1]/',
      'https://[0:0:0:0:0:0:7f00:1]/x',
      'https://[::ffff:7f00:1]/',
      'https://[64:ff9b::127.0.0.1]/',
    ]) {
      expect(checkUrlShape(url, { allowPrivate: false }), url).toMatchObject({ ok: false });
    }
  });
});
