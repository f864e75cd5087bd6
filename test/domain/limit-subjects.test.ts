import { describe, expect, it } from 'vitest';
import { clientAddressBlock, mailboxAddress } from '../../src/domain/limit-subjects';

// What the dashboard's limits count as one client and one inbox.
describe('clientAddressBlock', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::FFFF:198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
    ['2001:db8:1:2:3:4:198.51.100.7', '2001:db8:1:2::/64'],
  ])('counts %s as %s', (ip, block) => {
    expect(clientAddressBlock(ip)).toBe(block);
  });

  it('puts every address of one /64 together, and another /64 apart', () => {
    const one = ['2001:db8:a:b::1', '2001:db8:a:b:1234:5678:9abc:def0', '2001:db8:a:b::ffff'].map(clientAddressBlock);
    expect(new Set(one).size).toBe(1);
    expect(clientAddressBlock('2001:db8:a:c::1')).not.toBe(one[0]);
  });

  it('leaves what is not an IPv6 address as it is', () => {
    expect(clientAddressBlock('unknown')).toBe('unknown');
    expect(clientAddressBlock('')).toBe('');
  });
});

describe('mailboxAddress', () => {
  it.each([
    ['bob@example.com', 'bob@example.com'],
    ['bob+1@example.com', 'bob@example.com'],
    ['bob+a+b@example.com', 'bob@example.com'],
    ['bob+@example.com', 'bob@example.com'],
    // A local part that starts with + has no name before its tag: kept whole.
    ['+bob@example.com', '+bob@example.com'],
    ['"a+b"@example.com', '"a+b"@example.com'],
    ['no-at-sign', 'no-at-sign'],
  ])('counts %s as %s', (email, mailbox) => {
    expect(mailboxAddress(email)).toBe(mailbox);
  });
});
