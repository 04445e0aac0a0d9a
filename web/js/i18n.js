// Languages of the web client: English, Bengali and Hindi. Messages live in
// `i18n/{en,bn,hi}.js` (one flat object of keys each; game terms follow the seed
// texts of ../shared/seeds). The language is taken from a remembered choice
// (`localStorage['ludo.lang']`), else from the browser's languages, else English.
// Numbers, dates and clocks are formatted with `Intl` for the chosen language.
//
// A message is a string with `{name}` placeholders, or an object of plural forms
// (`{one, other}`, chosen with `Intl.PluralRules` on the parameter `n`). Number
// parameters are formatted with `Intl.NumberFormat`; strings are inserted as given.

/**
 * The message tables by language code, filled as they are loaded: only the active
 * language's table is fetched (`loadLanguage`), whatever the others weigh.
 */
export const MESSAGES = {};
/** The loaders of the tables (one module per language). */
const TABLES = {
  en: () => import('./i18n/en.js'),
  bn: () => import('./i18n/bn.js'),
  hi: () => import('./i18n/hi.js'),
};

/** Loads the table of `code` (once). */
export async function loadLanguage(code) {
  if (!MESSAGES[code]) MESSAGES[code] = (await TABLES[code]()).default;
  return MESSAGES[code];
}

/** Loads every table (the tests compare them). */
export async function loadAll() {
  await Promise.all(Object.keys(TABLES).map(loadLanguage));
}
/** Supported languages in menu order, with their own names. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'bn', name: 'বাংলা' },
  { code: 'hi', name: 'हिन्दी' },
];
/** localStorage key of the remembered choice. */
export const LANG_KEY = 'ludo.lang';

let lang = 'en';
let numberFmt = new Intl.NumberFormat('en');
let plural = new Intl.PluralRules('en');
const listeners = new Set();

/**
 * The language to use: `stored` when it is supported, else the first of the
 * browser's `preferred` languages (BCP 47 tags, e.g. "bn-BD") whose primary
 * subtag is supported, else "en".
 * @param {string | null} stored
 * @param {readonly string[]} [preferred]
 */
export function pickLanguage(stored, preferred = []) {
  if (stored && TABLES[stored]) return stored;
  for (const tag of preferred) {
    const primary = String(tag).toLowerCase().split('-')[0];
    if (TABLES[primary]) return primary;
  }
  return 'en';
}

/** The current language code. */
export function currentLanguage() {
  return lang;
}

/**
 * Message `key` in the current language with `params` filled in. A key missing in
 * the language falls back to English; a key missing everywhere is returned as is
 * (and logged, so the browser test's console check catches it).
 */
export function t(key, params = {}) {
  let msg = MESSAGES[lang]?.[key] ?? MESSAGES.en?.[key];
  if (msg === undefined) {
    console.error(`i18n: no message for "${key}"`);
    return key;
  }
  // Plural forms by Intl.PluralRules; an explicit "zero" form wins for n = 0 ("no
  // other session" rather than "0 other sessions").
  if (typeof msg === 'object') {
    const n = Number(params.n ?? 0);
    msg = (n === 0 ? msg.zero : undefined) ?? msg[plural.select(n)] ?? msg.other;
  }
  return msg.replace(/\{(\w+)\}/g, (m, name) => {
    if (!(name in params)) return m;
    const v = params[name];
    return typeof v === 'number' ? numberFmt.format(v) : String(v);
  });
}

/** A number in the current language's digits and grouping. */
export function num(n) {
  return numberFmt.format(n);
}

/** A list of numbers ("3, 4, 6") in the current language. */
export function numList(xs, sep = ', ') {
  return xs.map((x) => numberFmt.format(x)).join(sep);
}

/** Time of day of an RFC 3339 / epoch-ms instant. */
export function timeOfDay(t) {
  return new Intl.DateTimeFormat(lang, { timeStyle: 'short' }).format(new Date(t));
}

/** Date and time of an instant. */
export function dateTime(t) {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(t));
}

/** m:ss from milliseconds (rounded up, never negative), in the language's digits. */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = new Intl.NumberFormat(lang, { minimumIntegerDigits: 2 });
  return `${numberFmt.format(Math.floor(s / 60))}:${two.format(s % 60)}`;
}

/** A seat's name ("Green"). */
export function seatName(seat) {
  return t(`seat.${seat}`);
}

/**
 * A seat's name as the owner before a possessive ("Green's entry tile"; Hindi
 * "पीले का", the oblique case of पीला).
 */
export function seatOf(seat) {
  return t(`seatOf.${seat}`);
}

/** A mode's name ("Journey"). */
export function modeName(mode) {
  return t(`mode.${mode}`);
}

/**
 * The translated message of a server (or client) error code; unknown codes get a
 * general message naming the code.
 */
export function errorMessage(code) {
  const key = `error.${code}`;
  if (code && (MESSAGES[lang]?.[key] ?? MESSAGES.en?.[key])) return t(key);
  return t('error.unknown', { code: code ?? '?' });
}

/**
 * Translates the static page: `data-i18n` (text), `data-i18n-label` (aria-label),
 * `data-i18n-placeholder` and `data-i18n-title` name message keys.
 */
export function translatePage(root = document) {
  /** @param {string} selector */
  const all = (selector) => /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector));
  for (const el of all('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of all('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
  for (const el of all('[data-i18n-placeholder]')) el.setAttribute('placeholder', t(el.dataset.i18nPlaceholder));
  for (const el of all('[data-i18n-title]')) el.setAttribute('title', t(el.dataset.i18nTitle));
}

/**
 * Switches to `code` (remembered in localStorage) once its table is loaded,
 * re-translates, tells listeners.
 */
export async function setLanguage(code, { remember = true } = {}) {
  code = TABLES[code] ? code : 'en';
  await loadLanguage(code);
  lang = code;
  numberFmt = new Intl.NumberFormat(lang);
  plural = new Intl.PluralRules(lang);
  if (remember) {
    try {
      localStorage.setItem(LANG_KEY, lang);
    } catch {
      // storage may be unavailable (private mode): the choice lasts for this page
    }
  }
  if (typeof document !== 'undefined') {
    document.documentElement.lang = lang;
    document.title = t('app.title');
    translatePage();
  }
  for (const fn of listeners) fn(lang);
}

/** Calls `fn(lang)` after every language switch. */
export function onLanguageChange(fn) {
  listeners.add(fn);
}

/** Picks (and loads) the language at start-up (stored choice, then the browser's) without storing it. */
export async function initLanguage() {
  let stored = null;
  try {
    stored = localStorage.getItem(LANG_KEY);
  } catch {
    stored = null;
  }
  return setLanguage(pickLanguage(stored, navigator.languages ?? [navigator.language]), { remember: false });
}

/**
 * The name shown for a seat (`SeatInfo` of `match_started`, snapshots and replays):
 * a seated bot is "Bot" in the player's language (its server name, "Bot Ash", is
 * English), with its level (`bot_level`) when it has one; a person's name (or a
 * seat whose player left) as given, "deleted player" when it is empty (the player
 * deleted the account: the server keeps the seat's turns under the name "").
 */
export function seatShownName(s) {
  if (!((s.bot ?? s.is_bot) && !s.left)) return s.name === '' ? t('player.deleted') : s.name;
  const name = t('player.bot');
  return s.bot_level ? t('seat.botLevel', { name, level: t(`level.${s.bot_level}`) }) : name;
}
