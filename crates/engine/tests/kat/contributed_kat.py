#!/usr/bin/env python3
"""Independent derivation of the contributed dice (proto/README.md §10), for the
known-answer test crates/engine/tests/contributed_kat.rs. Uses only Python's hashlib/hmac
(HKDF-SHA256, RFC 5869) and the `cryptography` package's ChaCha20 (RFC 8439 block
function; its 16-byte nonce is the 4-byte little-endian block counter, 0, followed
by the 12-byte nonce, zero). Re-derive with:

    python3 crates/engine/tests/kat/contributed_kat.py > crates/engine/tests/kat/contributed_kat.json
"""
import hashlib
import hmac
import json

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

SEATS = ["green", "red", "blue", "yellow"]
INFO_PREFIX = b"ludo dice v2"
LIMIT = 4294967291  # largest u32 kept: 6 * 715827882 - 1


def hkdf_sha256(ikm: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(b"\x00" * 32, ikm, hashlib.sha256).digest()  # extract, no salt
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
        i += 1
    return out[:length]


# RFC 5869 test case 3 (SHA-256, no salt, empty info): the HKDF above is standard.
assert (
    hkdf_sha256(b"\x0b" * 22, b"", 42).hex()
    == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
)


def contributed_key(seed: bytes, entropies) -> bytes:
    info = INFO_PREFIX
    for e in entropies:
        info += bytes([len(e)]) + e
    return hkdf_sha256(seed, info, 32)


def dice(key: bytes, n: int):
    enc = Cipher(algorithms.ChaCha20(key, b"\x00" * 16), mode=None).encryptor()
    stream = enc.update(b"\x00" * 4096)
    out, i = [], 0
    while len(out) < n:
        x = int.from_bytes(stream[i : i + 4], "little")
        i += 4
        if x <= LIMIT:
            out.append(1 + x % 6)
    return out


def case(name, seed, entropies):
    key = contributed_key(seed, entropies)
    return {
        "name": name,
        "seed": seed.hex(),
        "contributions": [
            {"seat": s, "entropy": e.hex(), "defaulted": len(e) == 0}
            for s, e in zip(SEATS, entropies)
        ],
        "key": key.hex(),
        "dice": dice(key, 30),
        "server_seed_dice": dice(seed, 30),
    }


seed1 = bytes(range(32))
seed2 = hashlib.sha256(b"known-answer seed 2").digest()
cases = [
    case("all defaults", seed1, [b"", b"", b"", b""]),
    case(
        "mixed lengths",
        seed1,
        [bytes(range(0x10, 0x20)), b"", b"\xab" * 32, bytes(range(64))],
    ),
    case(
        "four players",
        seed2,
        [
            hashlib.sha256(b"green").digest()[:16],
            hashlib.sha256(b"red").digest()[:16],
            hashlib.sha256(b"blue").digest()[:16],
            hashlib.sha256(b"yellow").digest()[:16],
        ],
    ),
    case(
        "one byte differs",
        seed2,
        [
            hashlib.sha256(b"green").digest()[:16],
            hashlib.sha256(b"red").digest()[:16],
            hashlib.sha256(b"blue").digest()[:16],
            hashlib.sha256(b"yellow").digest()[:15] + b"\x00",
        ],
    ),
]
print(json.dumps({"info_prefix": INFO_PREFIX.decode(), "cases": cases}, indent=1))
