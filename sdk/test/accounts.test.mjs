// The SDK's account calls (src/accounts.ts, issue 29) against the real ludo-server:
// a guest claims its player, signs in from a second "device", lists and signs out
// sessions (the signed-out socket is closed with 4002: status `signed_out`, no
// reconnect), changes its name and password, deletes the account; every refusal is
// a RestError with its code.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect, Accounts, Rest, RestError } from '../dist/index.js';
import { startServer, within } from './harness.mjs';

let server;

before(async () => {
  // The sign-in budgets are the rate-limit test's (below): not this file's limit.
  server = await startServer({
    LUDO_SIGN_INS_PER_MINUTE: '1000',
    LUDO_SIGN_IN_BURST: '1000',
    LUDO_ACCOUNT_SIGN_INS_PER_MINUTE: '1000',
    LUDO_ACCOUNT_SIGN_IN_BURST: '1000',
  });
});
after(async () => {
  await server?.stop();
});

/** A new guest and its Accounts client. */
async function guest(name) {
  const g = await new Rest(server.http).createGuest(name);
  return { ...g, accounts: new Accounts(server.http, { token: g.token }) };
}

/** Asserts that `promise` rejects with a RestError of `status` and `code`. */
async function refused(promise, status, code) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof RestError, `a RestError: ${e}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.status, status);
    return true;
  });
}

test('a guest claims its player: same player_id and name, a username; the claim is refused when malformed or taken', async () => {
  const g = await guest('Claire');
  const before = await g.accounts.me();
  assert.equal(before.player_id, g.player_id);
  assert.equal(before.username, null, 'a guest has no username');
  assert.equal(before.name, 'Claire');
  assert.equal(before.session_id, g.session_id);

  await refused(g.accounts.claimAccount('claire', 'short'), 400, 'invalid_password');
  await refused(g.accounts.claimAccount('', 'long enough password'), 400, 'invalid_username');
  const acc = await g.accounts.claimAccount('claire', 'long enough password');
  assert.equal(acc.player_id, g.player_id);
  assert.equal(acc.username, 'claire');
  assert.equal(acc.name, 'Claire');
  assert.equal((await g.accounts.me()).username, 'claire', 'the same token now reads the account');
  await refused(g.accounts.claimAccount('claire2', 'long enough password'), 409, 'already_claimed');

  const other = await guest('Other');
  await refused(other.accounts.claimAccount('CLAIRE', 'long enough password'), 409, 'username_taken');
  // Any script, 8 characters (not bytes).
  const bn = await other.accounts.claimAccount('অমলা', 'পাসওয়ার্ডটি');
  assert.equal(bn.username, 'অমলা');
  await refused(new Accounts(server.http).claimAccount('nobody', 'long enough password'), 401, 'not_authenticated');
});

test('sign-in from another device: the same player; a wrong password or an unknown username is bad_credentials', async () => {
  const g = await guest('Dana');
  await g.accounts.claimAccount('dana', 'dana password 1');
  const device = new Accounts(server.http);
  await refused(device.signIn('dana', 'wrong password'), 401, 'bad_credentials');
  await refused(device.signIn('nobody-here', 'dana password 1'), 401, 'bad_credentials');
  assert.equal(device.token, undefined, 'no token after a refusal');
  const s = await device.signIn('DANA', 'dana password 1');
  assert.equal(s.player_id, g.player_id);
  assert.match(s.token, /^[0-9a-f]{64}$/);
  assert.notEqual(s.token, g.token);
  assert.equal(device.token, s.token, 'signIn sets the token');
  const me = await device.me();
  assert.equal(me.player_id, g.player_id);
  assert.equal(me.session_id, s.session_id);
  // The new session plays as the same player on the WebSocket.
  const c = await within(10_000, 'welcome', connect(server.ws, s.token, { client: 'sdk-test/accounts' }));
  assert.equal(c.welcome.player_id, g.player_id);
  c.close();
});

test('sessions: listed (this one marked), one signed out closes its socket with 4002 (status signed_out, no reconnect), the others too', async () => {
  const g = await guest('Eli');
  await g.accounts.claimAccount('eli', 'eli password 1');
  const phone = new Accounts(server.http);
  const s2 = await phone.signIn('eli', 'eli password 1');
  const tablet = new Accounts(server.http);
  const s3 = await tablet.signIn('eli', 'eli password 1');
  const c2 = await within(10_000, 'welcome 2', connect(server.ws, s2.token, { client: 'phone/1', backoffInitialMs: 50 }));
  const statuses = [];
  c2.on('status', (s) => statuses.push(s));

  const list = await g.accounts.listSessions();
  assert.deepEqual(new Set(list.map((s) => s.session_id)), new Set([g.session_id, s2.session_id, s3.session_id]));
  assert.deepEqual(list.filter((s) => s.current).map((s) => s.session_id), [g.session_id], 'only the caller is current');
  for (const s of list) {
    assert.ok(!Number.isNaN(Date.parse(s.created_at)) && !Number.isNaN(Date.parse(s.last_used_at)), JSON.stringify(s));
    assert.equal(typeof s.client, 'string');
  }
  assert.equal(list.find((s) => s.session_id === s2.session_id).client, 'phone/1', "the client string of the session's hello");
  const used = list.map((s) => Date.parse(s.last_used_at));
  assert.deepEqual(used, [...used].sort((a, b) => b - a), 'most recently used first');

  const closed = c2.next('status', (s) => s === 'signed_out');
  const t0 = Date.now();
  await g.accounts.signOutSession(s2.session_id);
  await within(3000, 'status signed_out', closed);
  const ms = Date.now() - t0;
  assert.ok(ms < 2000, `closed within ${ms} ms`);
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(statuses, ['signed_out'], 'no reconnect after 4002');
  await refused(phone.me(), 401, 'not_authenticated');
  await refused(g.accounts.signOutSession(s2.session_id), 404, 'session_not_found');

  const r = await g.accounts.signOutOthers();
  assert.equal(r.signed_out, 1, 'the tablet');
  await refused(tablet.me(), 401, 'not_authenticated');
  assert.deepEqual((await g.accounts.listSessions()).map((s) => s.session_id), [g.session_id]);

  // `current`: the caller's own session.
  await g.accounts.signOutSession('current');
  await refused(g.accounts.me(), 401, 'not_authenticated');
});

test('a hello with a signed-out token is refused (not_authenticated)', async () => {
  const g = await guest('Fay');
  await g.accounts.signOutSession('current');
  await assert.rejects(connect(server.ws, g.token), (e) => e.code === 'not_authenticated');
});

test('name and password: the display name changes (guests too); a new password signs out the other sessions', async () => {
  const g = await guest('Gus');
  assert.equal((await g.accounts.changeName('Gustav')).name, 'Gustav', 'a guest renames itself');
  await refused(g.accounts.changeName(''), 400, 'invalid_name');
  await refused(g.accounts.changePassword('whatever1', 'whatever2'), 409, 'not_claimed');
  await g.accounts.claimAccount('gus', 'first password');
  const other = new Accounts(server.http);
  await other.signIn('gus', 'first password');
  await refused(g.accounts.changePassword('not the password', 'second password'), 401, 'bad_credentials');
  await refused(g.accounts.changePassword('first password', 'short'), 400, 'invalid_password');
  const r = await g.accounts.changePassword('first password', 'second password');
  assert.equal(r.signed_out, 1);
  await refused(other.me(), 401, 'not_authenticated');
  assert.equal((await g.accounts.me()).name, 'Gustav', 'this session stays');
  await refused(new Accounts(server.http).signIn('gus', 'first password'), 401, 'bad_credentials');
  await new Accounts(server.http).signIn('gus', 'second password');
});

test('delete: refused with a wrong password or while seated in a running match; then the account and its sessions are gone', async () => {
  const g = await guest('Hana');
  await g.accounts.claimAccount('hana', 'hana password');
  const c = await within(10_000, 'welcome', connect(server.ws, g.token));
  await refused(g.accounts.deleteAccount('wrong password'), 401, 'bad_credentials');
  const closed = c.next('status', (s) => s === 'signed_out');
  await g.accounts.deleteAccount('hana password');
  await within(3000, 'status signed_out', closed);
  await refused(g.accounts.me(), 401, 'not_authenticated');
  await refused(new Accounts(server.http).signIn('hana', 'hana password'), 401, 'bad_credentials');
  // Seated in a running match: in_match until the match is left.
  const k = await guest('Kim');
  await k.accounts.claimAccount('kim', 'kim password');
  const kc = await within(10_000, 'welcome', connect(server.ws, k.token));
  const started = kc.next('match_started');
  await kc.createLobby({ mode: 'journey', fill_with_bots: true });
  await kc.startLobby();
  const m = await within(10_000, 'match_started', started);
  await refused(k.accounts.deleteAccount('kim password'), 409, 'in_match');
  await kc.leaveMatch(m.d.match_id);
  await k.accounts.deleteAccount('kim password');
  kc.close();
  // A guest deletes itself without a password.
  const h = await guest('Ivo');
  await h.accounts.deleteAccount();
  await refused(h.accounts.me(), 401, 'not_authenticated');
});

test('too many sign-ins from one address: 429 rate_limited with Retry-After (RestError.retryAfterS)', async () => {
  const small = await startServer({ LUDO_SIGN_INS_PER_MINUTE: '1', LUDO_SIGN_IN_BURST: '2' });
  try {
    const g = await new Rest(small.http).createGuest('Jo');
    await new Accounts(small.http, { token: g.token }).claimAccount('jo', 'jo password');
    const device = new Accounts(small.http);
    let limited = null;
    for (let i = 0; i < 5 && !limited; i++) {
      try {
        await device.signIn('jo', 'wrong password');
      } catch (e) {
        assert.ok(e instanceof RestError);
        if (e.code === 'rate_limited') limited = e;
        else assert.equal(e.code, 'bad_credentials');
      }
    }
    assert.ok(limited, 'refused with rate_limited within 5 attempts');
    assert.equal(limited.status, 429);
    assert.ok(Number.isInteger(limited.retryAfterS) && limited.retryAfterS > 0, `Retry-After ${limited.retryAfterS} s`);
    // The right password is refused too while the budget is spent.
    await refused(device.signIn('jo', 'jo password'), 429, 'rate_limited');
  } finally {
    await small.stop();
  }
});
