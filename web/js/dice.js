// The replay viewer's dice check (proto/README.md §10) is the client SDK's
// `verifyDice` (sdk/src/dice.ts, copied into js/sdk/ by scripts/build-web-sdk.sh):
// SHA-256 of the seed against the commitment, the dice key (scheme `contributed`:
// HKDF-SHA256 of the seed and each seat's recorded contribution; `server_seed`: the
// seed itself) and every turn's dice re-rolled with ChaCha20, all from @noble/hashes
// and @noble/ciphers (js/vendor/). No cryptography is written out here.
//
// verifyDice(replay) resolves to `{ state: 'hidden' }` before the seed is revealed,
// otherwise `{ state: 'ok' | 'bad', scheme, turns, players, defaults, why?, turn? }`.
export { verifyDice, checkDice, contributedKey, rollDice, keyStream, diceCommitment } from './sdk/index.js';
