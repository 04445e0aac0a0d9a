// Unit tests of the client's languages (web/js/i18n.js, web/js/i18n/*.js): every
// message exists in English, Bengali and Hindi with the same parameters, every
// server error code has a message, Bengali and Hindi texts are written in their
// own scripts, and numbers and clocks are formatted with Intl. Run: node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MESSAGES, pickLanguage, setLanguage, t, clock, num, errorMessage, loadAll, seatShownName } from '../js/i18n.js';

await loadAll();

const PROTO = new URL('../../proto/', import.meta.url);
const LANGS = ['en', 'bn', 'hi'];

/** The `{name}` parameters a message uses (over all its plural forms). */
function params(msg) {
  const forms = typeof msg === 'object' ? Object.values(msg) : [msg];
  return [...new Set(forms.flatMap((f) => [...f.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort();
}

test('English, Bengali and Hindi have exactly the same keys', () => {
  const en = Object.keys(MESSAGES.en).sort();
  assert.ok(en.length > 150, `${en.length} English keys`);
  for (const l of ['bn', 'hi']) {
    const keys = Object.keys(MESSAGES[l]).sort();
    assert.deepEqual(keys.filter((k) => !en.includes(k)), [], `${l} keys not in English`);
    assert.deepEqual(en.filter((k) => !keys.includes(k)), [], `English keys missing in ${l}`);
  }
});

test('every translation uses the same parameters as the English message', () => {
  for (const l of ['bn', 'hi']) {
    for (const [k, msg] of Object.entries(MESSAGES.en)) {
      assert.deepEqual(params(MESSAGES[l][k]), params(msg), `${l} ${k}`);
    }
  }
});

test('plural messages have an "other" form and are chosen on {n}', () => {
  for (const l of LANGS) {
    for (const [k, msg] of Object.entries(MESSAGES[l])) {
      if (typeof msg === 'object') {
        assert.equal(typeof msg.other, 'string', `${l} ${k}`);
        assert.ok(params(msg).includes('n'), `${l} ${k} has {n}`);
      } else {
        assert.equal(typeof msg, 'string', `${l} ${k}`);
      }
    }
  }
});

// Messages that the seeds write with the same (Latin) words as English, or that are
// only parameters and symbols: these may carry no Bengali or Hindi letters.
const SAME_WORDS = new Set([
  'seat.withName', 'seat.botLevel', 'turn.resolved', 'dir.forward', 'dir.backward', 'loc.yard', 'loc.home', 'loc.hp', 'loc.hpTile',
  'loc.tile', 'col.rolls', 'col.exits', 'col.exitCredits', 'fx.checkpoint', 'fx.midpoint', 'fx.home', 'board.piece',
  'plan.credits', 'replay.seed', 'home.liveItem', 'home.mineReplay', 'col.mu', 'col.sigma',
]);

test('Bengali and Hindi messages are written in Bengali and Devanagari script', () => {
  const script = { bn: /[\u0980-\u09FF]/, hi: /[\u0900-\u097F]/ };
  for (const l of ['bn', 'hi']) {
    for (const [k, msg] of Object.entries(MESSAGES[l])) {
      const text = typeof msg === 'object' ? msg.other : msg;
      if (SAME_WORDS.has(k)) continue;
      assert.match(text, script[l], `${l} ${k}: ${text}`);
    }
  }
});

test('every error code of proto/error_codes.json, of the REST API and of the SDK (disconnected, timeout, closed) has a message in every language', () => {
  const codes = JSON.parse(readFileSync(new URL('error_codes.json', PROTO), 'utf8'));
  const ws = codes.websocket.map((e) => e.code);
  const rest = codes.rest.map((e) => e.code);
  assert.ok(ws.length >= 29 && rest.includes('invalid_name'), `${ws.length} ws codes, rest ${rest}`);
  for (const code of [...ws, ...rest, 'not_found', 'method_not_allowed', 'disconnected', 'timeout', 'closed']) {
    for (const l of LANGS) assert.equal(typeof MESSAGES[l][`error.${code}`], 'string', `${l} error.${code}`);
  }
});

test('the language comes from the remembered choice, then the browser, then English', () => {
  assert.equal(pickLanguage('hi', ['bn-BD', 'en']), 'hi');
  assert.equal(pickLanguage(null, ['bn-BD', 'en']), 'bn');
  assert.equal(pickLanguage('xx', ['fr-FR', 'hi-IN']), 'hi');
  assert.equal(pickLanguage(null, ['fr-FR', 'de']), 'en');
  assert.equal(pickLanguage(undefined, []), 'en');
});

test('numbers, plurals and clocks are formatted with Intl for the language', async () => {
  await setLanguage('en', { remember: false });
  assert.equal(t('plan.steps', { n: 1 }), '1 step');
  assert.equal(t('plan.steps', { n: 3 }), '3 steps');
  // An explicit "zero" form for n = 0; without one, Intl's form ("0 steps").
  assert.equal(t('sessions.othersDone', { n: 0 }), 'No other session was signed in.');
  assert.equal(t('sessions.othersDone', { n: 2 }), '2 other sessions signed out.');
  assert.equal(t('password.done', { n: 0 }), 'Password changed; no other session was signed in.');
  assert.equal(t('plan.steps', { n: 0 }), '0 steps');
  assert.equal(num(1234), '1,234');
  assert.equal(clock(65_000), '1:05');
  assert.equal(clock(-5), '0:00');
  assert.equal(errorMessage('piece_in_yard'), 'A guardian you move is in the Yard: exit it in the same plan.');
  assert.equal(errorMessage('no_such_code'), 'The server refused (no_such_code).');
  await setLanguage('bn', { remember: false });
  // Bengali digits (০–৯) come from Intl.NumberFormat('bn').
  assert.equal(t('plan.credits', { n: 2 }), 'exit credits: ২');
  assert.equal(t('plan.steps', { n: 5 }), '৫ ঘর');
  assert.equal(t('sessions.othersDone', { n: 0 }), 'অন্য কোনো সেশন চালু ছিল না।');
  assert.equal(clock(65_000), '১:০৫');
  assert.equal(t('seat.green'), 'সবুজ');
  assert.equal(t('mode.journey'), 'যাত্রা');
  assert.equal(errorMessage('not_your_turn'), 'এখন আপনার পালা নয়।');
  await setLanguage('hi', { remember: false });
  assert.equal(t('plan.title', { n: 12 }), 'आपकी बारी — बारी 12');
  assert.equal(t('mode.clash'), 'भिड़ंत');
  assert.equal(t('piece.royal'), 'शाही');
  await setLanguage('en', { remember: false });
});

test('accounts: a deleted player\'s seat (name "") is "deleted player"; the account texts take Intl numbers', async () => {
  const want = { en: 'deleted player', bn: 'মুছে ফেলা খেলোয়াড়', hi: 'मिटाया गया खिलाड़ी' };
  for (const l of LANGS) {
    await setLanguage(l, { remember: false });
    assert.equal(seatShownName({ seat: 'red', name: '', bot: false }), want[l], l);
    assert.equal(seatShownName({ seat: 'red', name: 'Ada', bot: false }), 'Ada', l);
  }
  await setLanguage('bn', { remember: false });
  assert.equal(t('account.passwordRules', { min: 8, max: 128 }), '৮ থেকে ১২৮টি অক্ষর: যেকোনো লিপির বর্ণ, সংখ্যা, ফাঁকা জায়গা বা চিহ্ন।');
  assert.equal(t('account.tooMany', { n: 30 }), 'অনেক বেশি চেষ্টা হয়েছে: ৩০ সেকেন্ড পরে আবার চেষ্টা করুন।');
  await setLanguage('en', { remember: false });
  assert.equal(t('account.tooMany', { n: 1 }), 'Too many attempts: try again in 1 second.');
  assert.equal(t('password.done', { n: 2 }), 'Password changed; 2 other sessions were signed out.');
  assert.equal(errorMessage('bad_credentials'), 'Wrong username or password.');
});
