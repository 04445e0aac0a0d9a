// The SDK's passkey calls (src/accounts.ts, issue 29.2) against the real ludo-server
// (its default relying party: id `localhost`, origin http://localhost:8080): a whole
// ceremony through `Accounts.addPasskey` and `Accounts.signInWithPasskey` with a
// software authenticator standing in for `navigator.credentials` (WebCrypto P-256,
// "none" attestation, a discoverable credential whose user handle is the player id),
// the base64url conversions, listing and removal, and the typed refusals.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto as crypto } from 'node:crypto';
import {
  Accounts, Rest, RestError, toBase64Url, fromBase64Url, creationOptions, requestOptions, credentialJSON,
} from '../dist/index.js';
import { startServer } from './harness.mjs';

const ORIGIN = 'http://localhost:8080';
let server;

before(async () => {
  server = await startServer({ LUDO_SIGN_INS_PER_MINUTE: '1000', LUDO_SIGN_IN_BURST: '1000' });
});
after(async () => {
  await server?.stop();
});

async function refused(promise, status, code) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof RestError, `a RestError: ${e}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.status, status);
    return true;
  });
}

// ---- a minimal CBOR encoder (unsigned and negative integers, bytes, text, maps) ----
function head(major, n) {
  if (n < 24) return [(major << 5) | n];
  if (n < 256) return [(major << 5) | 24, n];
  return [(major << 5) | 25, n >> 8, n & 255];
}
function cbor(v) {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (v instanceof Uint8Array) return [...head(2, v.length), ...v];
  if (typeof v === 'string') {
    const b = new TextEncoder().encode(v);
    return [...head(3, b.length), ...b];
  }
  const entries = v instanceof Map ? [...v] : Object.entries(v);
  return [...head(5, entries.length), ...entries.flatMap(([k, x]) => [...cbor(k), ...cbor(x)])];
}

const bytes = (...parts) => new Uint8Array(parts.flatMap((p) => [...p]));
const sha256 = async (b) => new Uint8Array(await crypto.subtle.digest('SHA-256', b));

/** A DER ECDSA signature of WebCrypto's raw r‖s. */
function der(raw) {
  const int = (x) => {
    let i = 0;
    while (i < x.length - 1 && x[i] === 0) i++;
    x = x.slice(i);
    if (x[0] & 0x80) x = bytes([0], x);
    return bytes([2, x.length], x);
  };
  const body = bytes(int(raw.slice(0, 32)), int(raw.slice(32)));
  return bytes([0x30, body.length], body);
}

/**
 * A software platform authenticator with the part of `CredentialsContainer` the SDK
 * uses: `create` makes a resident P-256 credential, `get` signs with the one whose
 * rp id matches (the first one, like a user picking it).
 */
function softAuthenticator(origin = ORIGIN) {
  const creds = [];
  const clientData = (type, challenge) => new TextEncoder().encode(JSON.stringify({ type, challenge: toBase64Url(challenge), origin, crossOrigin: false }));
  return {
    creds,
    async create({ publicKey }) {
      const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
      const jwk = await crypto.subtle.exportKey('jwk', keys.publicKey);
      const id = crypto.getRandomValues(new Uint8Array(16));
      const cose = new Map([[1, 2], [3, -7], [-1, 1], [-2, new Uint8Array(fromBase64Url(jwk.x))], [-3, new Uint8Array(fromBase64Url(jwk.y))]]);
      const rpIdHash = await sha256(new TextEncoder().encode(publicKey.rp.id));
      // Flags: user present, user verified, attested credential data.
      const authData = bytes(rpIdHash, [0x45], [0, 0, 0, 0], new Uint8Array(16), [0, id.length], id, cbor(cose));
      const attestationObject = new Uint8Array(cbor({ fmt: 'none', attStmt: {}, authData }));
      creds.push({ id, rpId: publicKey.rp.id, userHandle: new Uint8Array(publicKey.user.id), key: keys.privateKey, count: 0 });
      return { id: toBase64Url(id), rawId: id.buffer, type: 'public-key', response: { clientDataJSON: clientData('webauthn.create', publicKey.challenge).buffer, attestationObject: attestationObject.buffer }, getClientExtensionResults: () => ({}) };
    },
    async get({ publicKey }) {
      const c = creds.find((x) => x.rpId === publicKey.rpId);
      if (!c) throw new DOMException('no credential', 'NotAllowedError');
      c.count += 1;
      const rpIdHash = await sha256(new TextEncoder().encode(c.rpId));
      const authData = bytes(rpIdHash, [0x05], [0, 0, 0, c.count]);
      const cdj = clientData('webauthn.get', publicKey.challenge);
      const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, c.key, bytes(authData, await sha256(cdj))));
      return { id: toBase64Url(c.id), rawId: c.id.buffer, type: 'public-key', response: { clientDataJSON: cdj.buffer, authenticatorData: authData.buffer, signature: der(raw).buffer, userHandle: c.userHandle.buffer }, getClientExtensionResults: () => ({}) };
    },
  };
}

/** A guest claimed as account `username`: its Accounts client and player id. */
async function account(username) {
  const g = await new Rest(server.http).createGuest(username);
  const accounts = new Accounts(server.http, { token: g.token });
  await accounts.claimAccount(username, 'long enough password');
  return { accounts, player_id: g.player_id };
}

test('base64url: bytes round-trip without padding; padded and standard base64 decode too', () => {
  const all = new Uint8Array(256).map((_, i) => i);
  const s = toBase64Url(all);
  assert.doesNotMatch(s, /[+/=]/);
  assert.deepEqual(new Uint8Array(fromBase64Url(s)), all);
  assert.equal(toBase64Url(new Uint8Array([0xfb, 0xff])), '-_8');
  assert.deepEqual(new Uint8Array(fromBase64Url('+/8=')), new Uint8Array([0xfb, 0xff]));
  assert.equal(toBase64Url(new Uint8Array(0)), '');
});

test("the server's options become WebAuthn options (byte fields decoded) and a credential becomes JSON", async () => {
  const { accounts, player_id } = await account('optioned');
  const c = await accounts.startAddingPasskey();
  assert.match(c.ceremony_id, /^[0-9a-f-]{36}$/);
  const o = creationOptions(c.options).publicKey;
  assert.ok(o.challenge instanceof ArrayBuffer && o.challenge.byteLength >= 16);
  assert.equal(toBase64Url(o.user.id), toBase64Url(Buffer.from(player_id.replace(/-/g, ''), 'hex')), 'the user handle is the player id');
  assert.equal(o.user.name, 'optioned');
  assert.equal(o.rp.id, 'localhost');
  assert.equal(o.authenticatorSelection.residentKey, 'required');
  assert.equal(o.authenticatorSelection.userVerification, 'required');
  const s = await accounts.startPasskeySignIn();
  const r = requestOptions(s.options);
  assert.ok(r.publicKey.challenge instanceof ArrayBuffer);
  assert.equal(r.publicKey.rpId, 'localhost');
  assert.equal(r.mediation, undefined, 'no conditional mediation: a button starts it');
  const json = credentialJSON({ id: 'AQI', rawId: new Uint8Array([1, 2]).buffer, type: 'public-key', response: { clientDataJSON: new Uint8Array([3]).buffer, authenticatorData: new Uint8Array([4]).buffer, signature: new Uint8Array([5]).buffer, userHandle: null } });
  assert.deepEqual(json, { id: 'AQI', rawId: 'AQI', type: 'public-key', response: { clientDataJSON: 'Aw', authenticatorData: 'BA', signature: 'BQ' }, extensions: {} });
});

test('a passkey is added, signs in on another device as the same player, is listed with its last use and removed', async () => {
  const { accounts, player_id } = await account('keyed');
  const authenticator = softAuthenticator();
  const added = await accounts.addPasskey('My phone', authenticator);
  assert.equal(added.name, 'My phone');
  assert.equal(added.last_used_at, null);
  assert.equal(added.passkey_id, toBase64Url(authenticator.creds[0].id));
  assert.deepEqual(await accounts.listPasskeys(), [added]);

  const device = new Accounts(server.http);
  const s = await device.signInWithPasskey(authenticator);
  assert.equal(s.player_id, player_id);
  assert.equal(device.token, s.token, 'the new session token is set');
  assert.equal((await device.me()).username, 'keyed');
  const [listed] = await device.listPasskeys();
  assert.ok(listed.last_used_at, 'the last use is recorded');

  await device.removePasskey(added.passkey_id);
  assert.deepEqual(await device.listPasskeys(), []);
  await refused(device.removePasskey(added.passkey_id), 404, 'passkey_not_found');
  await refused(new Accounts(server.http).signInWithPasskey(authenticator), 400, 'invalid_credential');
});

test('refusals: a guest, a foreign origin, a malformed credential, an unknown ceremony', async () => {
  const g = await new Rest(server.http).createGuest('guesty');
  await refused(new Accounts(server.http, { token: g.token }).startAddingPasskey(), 409, 'not_claimed');
  const { accounts } = await account('refused');
  await refused(accounts.addPasskey('Phone', softAuthenticator('http://evil.example')), 400, 'invalid_credential');
  const c = await accounts.startAddingPasskey();
  await refused(accounts.finishAddingPasskey(c.ceremony_id, 'Phone', { id: 'x' }), 400, 'invalid_credential');
  await refused(accounts.finishAddingPasskey('00000000-0000-4000-8000-000000000000', 'Phone', { id: 'x', rawId: 'eA', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'oA' } }), 404, 'ceremony_not_found');
  const s = await accounts.startPasskeySignIn();
  await refused(new Accounts(server.http).finishPasskeySignIn(s.ceremony_id, {}), 400, 'invalid_credential');
  assert.deepEqual(await accounts.listPasskeys(), []);
});
