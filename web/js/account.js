// The account screen (`#/account`, issue 29) and the account sign-in form of the
// sign-in screen. A guest claims its player (username and password) or signs in to
// an existing account (which replaces the guest on this device); an account changes
// its display name and password, lists its sessions and signs them out (one, all
// others, this device) and deletes itself. Every call goes through the client SDK's
// `Accounts` (js/sdk/, REST `/api/v1/accounts`, `/api/v1/sessions`); error codes are
// shown as translated messages, `rate_limited` with its Retry-After seconds.
//
// Passkeys (WebAuthn): an account adds passkeys (`navigator.credentials.create`
// with the server's options, through the SDK's `Accounts.addPasskey`), lists and
// removes them; the sign-in screen and a guest's account screen sign in with one
// (`navigator.credentials.get`, `Accounts.signInWithPasskey`; no username). Where
// the browser has no WebAuthn the passkey controls stay hidden.

import { Accounts, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS, USERNAME_MAX_CHARS } from './sdk/index.js';
import { t, errorMessage, dateTime } from './i18n.js';

/**
 * The element of index.html with this id. Typed as an input, the kind most callers
 * read (`value`, `checked`, `disabled`); others cast it.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/** The SDK's account calls under this page's origin, with `token` (if any). */
export function accountsApi(token) {
  return new Accounts(location.origin, { token });
}

/** The text of a failed account call: its code's message (`rate_limited` with the seconds to wait). */
export function accountError(e) {
  if (e?.code === 'rate_limited' && e.retryAfterS != null) return t('account.tooMany', { n: e.retryAfterS });
  return e?.code ? errorMessage(e.code) : String(e?.message ?? e);
}

/** A session the server no longer knows (signed out, expired, deleted). */
function deadSession(e) {
  return e?.status === 401 && e.code === 'not_authenticated';
}

/** Characters as the server counts them (Unicode scalar values). */
const chars = (s) => [...s].length;
/** Characters of a name as the server counts them (protocol::text): grapheme clusters, so a conjunct such as "ক্ষি" is one. */
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const letters = (s) => [...graphemes.segment(s)].length;

let hooks = null;
/** The last `GET /api/v1/accounts/me`, sessions and passkeys lists shown (re-drawn on a language switch). */
let shown = { me: null, sessions: null, passkeys: null };

/** True when this browser can use passkeys (WebAuthn). */
const passkeysSupported = () => typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;

/** A passkey ceremony the user cancelled or the browser refused (a DOMException). */
function cancelled(e) {
  return e instanceof DOMException || e?.name === 'NotAllowedError' || e?.name === 'AbortError';
}

function say(id, text) {
  $(id).textContent = text ?? '';
}

/** The account screen's success messages. */
const OK_IDS = ['account-ok', 'name-ok', 'password-ok', 'sessions-ok', 'passkeys-ok'];

/** Clears every message of the account screen. */
function clearMessages() {
  for (const id of ['account-error', 'account-ok', 'claim-error', 'acct-login-error', 'acct-login-passkey-error', 'name-ok', 'name-error', 'password-ok', 'password-error', 'sessions-ok', 'sessions-error', 'passkeys-ok', 'passkeys-error', 'delete-error']) say(id, '');
}

/**
 * Runs `fn` with the form's submit button disabled; a failure is shown in `errId`
 * (a dead session signs out instead).
 */
async function busy(form, errId, fn, { ownPassword = false } = {}) {
  const btn = form.querySelector('button[type=submit]') ?? form;
  if (btn.disabled) return;
  btn.disabled = true;
  say(errId, '');
  // Only the latest success is shown: the earlier ones (claimed, name changed, …)
  // would otherwise pile up down the screen.
  for (const id of OK_IDS) say(id, '');
  try {
    await fn();
  } catch (e) {
    if (deadSession(e) && hooks.session()) {
      hooks.signedOut('signin.signedOut');
      return;
    }
    if (cancelled(e)) {
      say(errId, t('passkey.cancelled'));
      return;
    }
    // A wrong current password (change of password, deletion): no username involved.
    say(errId, ownPassword && e?.code === 'bad_credentials' ? t('account.wrongPassword') : accountError(e));
  } finally {
    btn.disabled = false;
  }
}

/** The password rules and username rules (numbers in the language's digits). */
export function translateRules() {
  for (const id of ['claim-password-rules', 'password-rules']) say(id, t('account.passwordRules', { min: PASSWORD_MIN_CHARS, max: PASSWORD_MAX_CHARS }));
  say('claim-username-rules', t('account.usernameRules', { max: USERNAME_MAX_CHARS }));
}

/** A username and password checked as the server will (a message key, or null when fine). */
function checkCredentials(username, password, { newPassword = false } = {}) {
  if (!username) return 'account.usernameMissing';
  if (letters(username) > USERNAME_MAX_CHARS) return 'error.invalid_username';
  return checkPassword(password, { newPassword });
}

function checkPassword(password, { newPassword = false } = {}) {
  if (!password) return 'account.passwordMissing';
  if (newPassword && (chars(password) < PASSWORD_MIN_CHARS || chars(password) > PASSWORD_MAX_CHARS)) return 'error.invalid_password';
  return null;
}

/**
 * Signs in with username and password (`POST /api/v1/sessions`), reads the account
 * with the new token, and hands the new session to the app (which replaces the
 * stored token and connects again).
 */
async function signInWith(username, password) {
  const api = accountsApi();
  const s = await api.signIn(username, password);
  const me = await api.me();
  hooks.signedIn({ token: s.token, player_id: s.player_id, name: me.name, username: me.username, session_id: s.session_id });
}

/**
 * Signs in with a passkey (no username: the passkey names the account), reads the
 * account with the new token and hands the new session to the app.
 */
async function signInWithPasskey() {
  const api = accountsApi();
  const s = await api.signInWithPasskey();
  const me = await api.me();
  hooks.signedIn({ token: s.token, player_id: s.player_id, name: me.name, username: me.username, session_id: s.session_id });
}

function wirePasskeyLogin(buttonId, errId) {
  const b = $(buttonId);
  b.addEventListener('click', () => busy(b, errId, signInWithPasskey));
}

function wireLogin(formId, userId, passId, errId) {
  const form = $(formId);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const username = $(userId).value.trim();
    const password = $(passId).value;
    const bad = checkCredentials(username, password);
    if (bad) {
      say(errId, t(bad));
      return;
    }
    busy(form, errId, async () => {
      await signInWith(username, password);
      $(passId).value = '';
    });
  });
}

/** The account's status line: "You play as a guest …" or "Username: <name>". */
function renderStatus(me) {
  const p = $('account-status');
  if (me.username == null) {
    p.textContent = t('account.guestStatus');
    return;
  }
  const strong = Object.assign(document.createElement('strong'), { textContent: me.username });
  strong.setAttribute('translate', 'no');
  strong.id = 'account-username';
  p.replaceChildren(`${t('account.usernameIs')} `, strong);
}

/** One row of the sessions list. */
function sessionItem(s, i) {
  const item = document.createElement('li');
  item.className = 'session';
  item.dataset.sessionId = s.session_id;
  item.dataset.current = String(!!s.current);
  const head = document.createElement('div');
  head.className = 'session-head';
  const client = document.createElement('strong');
  client.id = `session-${i}-client`;
  client.className = 'session-client';
  if (s.client) {
    client.textContent = s.client;
    client.setAttribute('translate', 'no');
  } else client.textContent = t('sessions.unknownClient');
  head.append(client);
  if (s.current) head.append(' ', Object.assign(document.createElement('span'), { className: 'badge', textContent: t('sessions.thisDevice') }));
  const times = Object.assign(document.createElement('p'), {
    className: 'small session-times',
    id: `session-${i}-times`,
    textContent: t('sessions.times', { created: dateTime(s.created_at), used: dateTime(s.last_used_at) }),
  });
  item.append(head, times);
  if (!s.current) {
    const b = Object.assign(document.createElement('button'), { type: 'button', className: 'session-signout', textContent: t('sessions.signOut') });
    b.setAttribute('aria-describedby', `${client.id} ${times.id}`);
    b.addEventListener('click', () =>
      busy(b, 'sessions-error', async () => {
        say('sessions-ok', '');
        await accountsApi(hooks.session().token).signOutSession(s.session_id);
        say('sessions-ok', t('sessions.oneDone'));
        await loadSessions();
        $('sessions-h').focus?.();
      }));
    item.append(b);
  }
  return item;
}

/** One row of the passkeys list. */
function passkeyItem(k, i) {
  const item = document.createElement('li');
  item.className = 'session passkey';
  item.dataset.passkeyId = k.passkey_id;
  const name = Object.assign(document.createElement('strong'), { id: `passkey-${i}-name`, className: 'session-client', textContent: k.name });
  name.setAttribute('translate', 'no');
  const times = Object.assign(document.createElement('p'), {
    className: 'small session-times',
    id: `passkey-${i}-times`,
    textContent: t('passkey.times', { created: dateTime(k.created_at), used: k.last_used_at ? dateTime(k.last_used_at) : t('passkey.neverUsed') }),
  });
  const b = Object.assign(document.createElement('button'), { type: 'button', className: 'passkey-remove', textContent: t('passkey.remove') });
  b.setAttribute('aria-describedby', `${name.id} ${times.id}`);
  b.addEventListener('click', () =>
    busy(b, 'passkeys-error', async () => {
      say('passkeys-ok', '');
      await accountsApi(hooks.session().token).removePasskey(k.passkey_id);
      say('passkeys-ok', t('passkey.removed'));
      await loadPasskeys();
      $('passkeys-h').focus?.();
    }));
  item.append(name, times, b);
  return item;
}

function renderPasskeys() {
  const list = shown.passkeys ?? [];
  $('passkeys-list').replaceChildren(...list.map(passkeyItem));
  $('passkeys-none').hidden = list.length > 0;
}

async function loadPasskeys() {
  shown.passkeys = await accountsApi(hooks.session().token).listPasskeys();
  renderPasskeys();
}

function renderSessions() {
  const ul = $('sessions-list');
  ul.replaceChildren(...(shown.sessions ?? []).map(sessionItem));
}

async function loadSessions() {
  shown.sessions = await accountsApi(hooks.session().token).listSessions();
  renderSessions();
}

/** Draws the screen from what was last read (after a language switch). */
function redraw() {
  const me = shown.me;
  if (!me) return;
  const guest = me.username == null;
  $('acct-claim').hidden = !guest;
  $('acct-login').hidden = !guest;
  for (const id of ['acct-password', 'acct-sessions', 'acct-passkeys', 'acct-delete']) $(id).hidden = guest;
  renderStatus(me);
  for (const id of ['password-username', 'delete-username']) $(id).value = me.username ?? '';
  if (!guest) {
    renderSessions();
    renderPasskeys();
  }
}

/**
 * Opens the account screen: reads the account (`GET /api/v1/accounts/me`) and, for
 * an account, its sessions. `focus`: `claim` puts the focus on the claim form.
 */
export async function renderAccount({ focus = null, keepMessages = false } = {}) {
  const s = hooks.session();
  if (!s) return;
  if (!keepMessages) clearMessages();
  translateRules();
  const api = accountsApi(s.token);
  try {
    const me = await api.me();
    if (hooks.session() !== s) return;
    const same = shown.me?.player_id === me.player_id;
    shown = { me, sessions: same ? shown.sessions : null, passkeys: same ? shown.passkeys : null };
    hooks.update({ name: me.name, username: me.username });
    if (document.activeElement !== $('name-input')) $('name-input').value = me.name;
    if (me.username != null) await Promise.all([loadSessions(), loadPasskeys()]);
    redraw();
  } catch (e) {
    if (deadSession(e)) {
      hooks.signedOut('signin.signedOut');
      return;
    }
    say('account-error', accountError(e));
    return;
  }
  if (focus === 'claim' && shown.me.username == null) $('claim-username').focus();
}

/** The language changed: the screen's own texts again. */
export function relabelAccount() {
  translateRules();
  if (document.body.dataset.screen === 'account') redraw();
}

/**
 * Wires the forms once. `h`: `session()` the app's session (`{token, player_id,
 * name, username}`) or null; `update(fields)` merges and stores fields of it;
 * `signedIn(session)` replaces it by a new one (account sign-in); `signedOut(key)`
 * drops it and shows the sign-in screen with message `key`; `signOutHere()` signs
 * this device out (the header's sign out).
 */
export function initAccount(h) {
  hooks = h;
  translateRules();
  wireLogin('login-form', 'login-username', 'login-password', 'login-error');
  wireLogin('acct-login-form', 'acct-login-username', 'acct-login-password', 'acct-login-error');
  const webauthn = passkeysSupported();
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-passkeys]'))) el.hidden = !webauthn;
  $('passkeys-unsupported').hidden = webauthn;
  wirePasskeyLogin('login-passkey', 'login-passkey-error');
  wirePasskeyLogin('acct-login-passkey', 'acct-login-passkey-error');

  $('passkey-form').addEventListener('submit', (e) => {
    e.preventDefault();
    say('passkeys-ok', '');
    const name = $('passkey-name').value.trim() || t('passkey.defaultName');
    if (letters(name) > USERNAME_MAX_CHARS) {
      say('passkeys-error', t('error.invalid_name'));
      return;
    }
    busy($('passkey-form'), 'passkeys-error', async () => {
      await accountsApi(hooks.session().token).addPasskey(name);
      $('passkey-name').value = '';
      say('passkeys-ok', t('passkey.added'));
      await loadPasskeys();
    });
  });

  $('claim-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const username = $('claim-username').value.trim();
    const password = $('claim-password').value;
    const bad = checkCredentials(username, password, { newPassword: true });
    if (bad) {
      say('claim-error', t(bad));
      return;
    }
    busy($('claim-form'), 'claim-error', async () => {
      const me = await accountsApi(hooks.session().token).claimAccount(username, password);
      $('claim-password').value = '';
      hooks.update({ name: me.name, username: me.username });
      await renderAccount({ keepMessages: true });
      say('account-ok', t('claim.done'));
      $('account-h').focus();
    });
  });

  $('name-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('name-input').value.trim();
    say('name-ok', '');
    if (!name) {
      say('name-error', t('error.invalid_name'));
      return;
    }
    busy($('name-form'), 'name-error', async () => {
      const me = await accountsApi(hooks.session().token).changeName(name);
      shown.me = me;
      hooks.update({ name: me.name });
      say('name-ok', t('account.nameSaved'));
    });
  });

  $('password-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const current = $('password-current').value;
    const next = $('password-new').value;
    say('password-ok', '');
    const bad = checkPassword(current) ?? checkPassword(next, { newPassword: true });
    if (bad) {
      say('password-error', t(bad));
      return;
    }
    busy($('password-form'), 'password-error', async () => {
      const r = await accountsApi(hooks.session().token).changePassword(current, next);
      $('password-current').value = '';
      $('password-new').value = '';
      say('password-ok', t('password.done', { n: r.signed_out }));
      await loadSessions();
    }, { ownPassword: true });
  });

  $('signout-others').addEventListener('click', () =>
    busy($('signout-others'), 'sessions-error', async () => {
      say('sessions-ok', '');
      const r = await accountsApi(hooks.session().token).signOutOthers();
      say('sessions-ok', t('sessions.othersDone', { n: r.signed_out }));
      await loadSessions();
    }));
  $('signout-here').addEventListener('click', () => hooks.signOutHere());

  $('delete-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const password = $('delete-password').value;
    if (!password) {
      say('delete-error', t('account.passwordMissing'));
      return;
    }
    if (!window.confirm(t('delete.confirm'))) return;
    busy($('delete-form'), 'delete-error', async () => {
      await accountsApi(hooks.session().token).deleteAccount(password);
      $('delete-password').value = '';
      hooks.signedOut('signin.deleted');
    }, { ownPassword: true });
  });
}
