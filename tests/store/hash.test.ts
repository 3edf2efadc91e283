/** The content hash names objects and makes ETags: its value is part of the output. */
import { describe, expect, it } from 'vitest';
import { contentEtag, contentHash, weakEtag } from '../../src/store/hash.ts';

describe('content hash', () => {
  it('is the first 32 hex characters of the SHA-256 of the bytes', () => {
    // sha256("") = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
    expect(contentHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb924');
    // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223');
  });

  it('hashes a string as its UTF-8 bytes', () => {
    expect(contentHash('zlib – ünïcode')).toBe(contentHash(Buffer.from('zlib – ünïcode', 'utf8')));
    expect(contentHash(new Uint8Array([0x61, 0x62, 0x63]))).toBe(contentHash('abc'));
  });

  it('makes weak ETags: W/"<hash>"', () => {
    expect(weakEtag('0123456789abcdef0123456789abcdef')).toBe('W/"0123456789abcdef0123456789abcdef"');
    expect(contentEtag('abc')).toBe('W/"ba7816bf8f01cfea414140de5dae2223"');
    expect(contentEtag(Buffer.from('abc'))).toBe(contentEtag('abc'));
  });
});
