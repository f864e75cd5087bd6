import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Webhook signing secrets must be readable again (we sign with them), so they are encrypted, not
// hashed: AES-256-GCM with SECRETS_KEY, a random 96-bit nonce per value, and the tag checked on read.
// Stored as `v1.<nonce>.<tag>.<ciphertext>` (base64url) so the scheme can change later.

export function encryptSecret(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', nonce, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const [version, nonce, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !nonce || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
