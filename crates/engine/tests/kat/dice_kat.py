#!/usr/bin/env python3
"""Known-answer dice for crates/engine/tests/dice_kat.rs, computed without the engine.

Written from the documented mapping (proto/README.md section 10, RULES.md section 10,
and the `Seed` schema): the dice of a match are ChaCha20 (RFC 8439 block function,
20 rounds, zero nonce, block counter from 0) keyed with the 32-byte seed; each die
takes the next little-endian u32 x of the key stream, skips x >= 4294967292, and is
1 + x mod 6.

The key stream comes from two independent sources that must agree:
* a pure-Python RFC 8439 block function below (checked against the RFC's own test
  vector, section 2.3.2), and
* the `cryptography` package from PyPI (OpenSSL's ChaCha20), when it is installed.

Run: python3 crates/engine/tests/kat/dice_kat.py
"""

import struct

MASK = 0xFFFFFFFF
REJECT_FROM = 4294967292  # the largest multiple of 6 that fits in a u32


def rotl(v, n):
    return ((v << n) & MASK) | (v >> (32 - n))


def quarter_round(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter, nonce):
    """RFC 8439 section 2.3: one 64-byte block."""
    const = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state = const + list(struct.unpack("<8I", key)) + [counter] + list(struct.unpack("<3I", nonce))
    w = list(state)
    for _ in range(10):
        quarter_round(w, 0, 4, 8, 12)
        quarter_round(w, 1, 5, 9, 13)
        quarter_round(w, 2, 6, 10, 14)
        quarter_round(w, 3, 7, 11, 15)
        quarter_round(w, 0, 5, 10, 15)
        quarter_round(w, 1, 6, 11, 12)
        quarter_round(w, 2, 7, 8, 13)
        quarter_round(w, 3, 4, 9, 14)
    return struct.pack("<16I", *[(a + b) & MASK for a, b in zip(w, state)])


def keystream_python(key, nbytes):
    out = b""
    counter = 0
    while len(out) < nbytes:
        out += chacha20_block(key, counter, bytes(12))
        counter += 1
    return out[:nbytes]


def keystream_cryptography(key, nbytes):
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    except ImportError:
        return None
    # OpenSSL's 16-byte ChaCha20 nonce: 4-byte little-endian counter, then the
    # 12-byte RFC 8439 nonce; all zero.
    enc = Cipher(algorithms.ChaCha20(key, bytes(16)), mode=None).encryptor()
    return enc.update(bytes(nbytes))


def check_rfc8439_vector():
    """RFC 8439 section 2.3.2 test vector for the block function."""
    key = bytes(range(32))
    nonce = bytes.fromhex("000000090000004a00000000")
    want = bytes.fromhex(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
    )
    assert chacha20_block(key, 1, nonce) == want, "RFC 8439 2.3.2 block mismatch"


def dice(seed, n):
    stream = keystream_python(seed, 4096)
    other = keystream_cryptography(seed, 4096)
    if other is not None:
        assert other == stream, "pure Python and `cryptography` key streams differ"
    out = []
    for (x,) in struct.iter_unpack("<I", stream):
        if x >= REJECT_FROM:
            continue
        out.append(1 + x % 6)
        if len(out) == n:
            return out, other is not None
    raise RuntimeError("key stream too short")


def main():
    check_rfc8439_vector()
    seeds = {
        "zero": bytes(32),
        "counting": bytes(range(32)),
        "ff": bytes([0xFF] * 32),
    }
    for name, seed in seeds.items():
        d, cross = dice(seed, 30)
        first_words = struct.unpack("<4I", keystream_python(seed, 16))
        print(f"{name} seed {seed.hex()}")
        print(f"  first u32 words: {list(first_words)}")
        print(f"  first 30 dice:   {d}")
        print(f"  cross-checked with `cryptography`: {cross}")


if __name__ == "__main__":
    main()
