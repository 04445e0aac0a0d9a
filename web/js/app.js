// The browser client: sign-in as a guest, quick play and private lobbies, live
// matches (play or spectate) with animated turns, the plan builder, clocks and
// scores, reconnect with resync, and the replay viewer. Routes (location.hash):
// `#/` lobby, `#/match/<id>` a match you play, `#/watch/<id>` spectate,
// `#/replay/<id>` a finished match's replay, `#/account` the account screen
// (js/account.js: claim the guest, sign in, sessions; `#/account/claim` focuses the
// claim form). Every text is in the chosen language
// (i18n.js: English, Bengali, Hindi; the header's menu switches and remembers it).

import { api, Connection } from './net.js';
import { initAccount, renderAccount, relabelAccount, accountsApi } from './account.js';
import { Board, describeEvent } from './board.js';
import { PlanBuilder, dieSvg } from './plan.js';
import { ReplayViewer } from './replay.js';
import { SEATS } from './notation.js';
import { initialState, stateFromPosition, removePlanRolls, standings } from './state.js';
import { renderScoreboard, renderStandings, renderBotBoard, planText } from './ui.js';
import { t, num, numList, clock, seatName, modeName, errorMessage, timeOfDay, dateTime, LANGUAGES, currentLanguage, setLanguage, initLanguage, onLanguageChange, seatShownName } from './i18n.js';


/** The dice contribution this tab sent, per match (hex). */
const sentEntropy = new Map();

/** `contribute_entropy`: 32 bytes from the browser's CSPRNG (proto/README.md §10). */
function contributeEntropy(matchId) {
  if (sentEntropy.has(matchId)) return;
  const hex = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
  sentEntropy.set(matchId, hex);
  conn.request('contribute_entropy', { match_id: matchId, entropy: hex }).catch(() => {});
}

/**
 * The element of index.html with this id. Typed as an input, the kind most callers
 * read (`value`, `checked`, `disabled`); others cast it.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/**
 * The value of the checked radio button of group `name` (index.html checks one).
 * @param {string} name
 * @returns {string}
 */
const checkedValue = (name) =>
  /** @type {HTMLInputElement} */ (document.querySelector(`input[name="${name}"]:checked`)).value;
const SESSION_KEY = 'ludo.session';

// {token, player_id, name, username}: username null for a guest, a string for an
// account, undefined until the server said (GET /api/v1/accounts/me).
let session = null;
let conn = null;
let live = null; // the match on screen (see newLive)
let lobby = null;
let rematchCode = null; // the code of the last rematch offered to this player
let activeMatches = [];
// The language's table is loaded (only that one) before anything is drawn.
await initLanguage();
const board = new Board(/** @type {SVGSVGElement} */ (document.querySelector('#board')), {
  onPieceClick: (seat, piece) => live?.planner?.pickPiece(piece),
  onZoom: () => {
    autoZoomed = false;
    zoomButtons();
    if (live?.planner && !live.planner.closed) live.planner.renderSheet();
  },
  zoomable: true,
});
// The board zoomed in by itself for the player's turn (undone when the turn ends,
// unless the player chose a zoom meanwhile).
let autoZoomed = false;

/** The zoom buttons under the board: − and the whole board off at the whole board, + off at the closest zoom. */
function zoomButtons() {
  $('zoom-out').disabled = !board.zoomed;
  $('zoom-fit').disabled = !board.zoomed;
  $('zoom-in').disabled = board.zoom >= board.maxZoom / 1.02;
  // A zoom button that just went off hands the keyboard focus to the other one.
  const off = document.activeElement?.closest?.('.zoom-bar button:disabled');
  if (off) $(off.id === 'zoom-in' ? 'zoom-out' : 'zoom-in').focus({ preventScroll: true });
}
const replay = new ReplayViewer();

// ---------- small helpers ----------

function show(screen) {
  // A new screen opens at its top (not where the last one was scrolled to).
  if (document.body.dataset.screen !== screen) window.scrollTo(0, 0);
  for (const s of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.screen'))) s.hidden = s.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
}

function setError(id, text) {
  $(id).textContent = text ?? '';
}

/** An error for the user: the translated message of its code (else its text). */
function errText(e) {
  return e?.code ? errorMessage(e.code) : String(e?.message ?? e);
}

function li(text) {
  return Object.assign(document.createElement('li'), { textContent: text });
}

function loadSession() {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY));
  } catch {
    return null;
  }
}

/** The player's matches (`GET /api/v1/players/{id}/matches`): resume, watch or replay. */
/** Matches running now (`GET /api/v1/matches/live`), to spectate. */
async function renderLiveMatches() {
  const ul = $('live-matches');
  let list;
  try {
    list = (await api('/api/v1/matches/live')).matches ?? [];
  } catch (e) {
    ul.replaceChildren(li(t('home.liveFailed', { why: errText(e) })));
    return;
  }
  // Rebuild only when the list (or the language) changed, so a focused link keeps its focus.
  const key = `${currentLanguage()}:${list.slice(0, 10).map((m) => m.match_id).join(',')}`;
  if (ul.dataset.key === key && ul.children.length) return;
  ul.dataset.key = key;
  ul.replaceChildren();
  if (!list.length) ul.append(li(t('home.noneRunning')));
  for (const m of list.slice(0, 10)) {
    const item = document.createElement('li');
    const a = document.createElement('a');
    a.href = `#/watch/${m.match_id}`;
    a.textContent = t('home.liveItem', { mode: modeName(m.mode), names: m.seats.map((x) => (x.bot ? t('player.bot') : x.name)).join(', '), time: timeOfDay(m.started_at) });
    item.append(a);
    ul.append(item);
  }
}

/** A skill rating (μ − 3σ, skill points) with one decimal, in the current language. */
function ratingText(x, sign = false) {
  return new Intl.NumberFormat(currentLanguage(), {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
    signDisplay: sign ? 'exceptZero' : 'auto',
  }).format(x);
}

/** Open public lobbies (the `lobby_list` pushed after `subscribe_lobbies`), each with a join button. */
let openLobbies = [];
function renderOpenLobbies() {
  const ul = $('open-lobbies');
  ul.replaceChildren();
  if (!openLobbies.length) ul.append(li(t('home.noOpenLobbies')));
  for (const l of openLobbies) {
    const item = li(t('home.openLobbyItem', { mode: modeName(l.mode), name: l.host_name, n: l.members }) + ' ');
    const b = Object.assign(document.createElement('button'), { type: 'button', textContent: t('home.join') });
    b.addEventListener('click', () => {
      setError('home-error', '');
      conn.send('join_lobby', { code: l.code });
    });
    item.append(b);
    ul.append(item);
  }
}

/** The rated leaderboards (`GET /api/v1/leaderboard`), the bot levels' ratings (`GET /api/v1/leaderboard/bots`) and the player's own ratings (`GET /api/v1/players/{id}`). */
async function renderRatings() {
  for (const mode of ['journey', 'clash']) {
    const ol = $(`board-${mode}`);
    try {
      const rows = (await api(`/api/v1/leaderboard?mode=${mode}&limit=10`)).players ?? [];
      ol.replaceChildren();
      if (!rows.length) ol.append(li(t('home.noRanked')));
      rows.forEach((r, i) => ol.append(li(`${num(i + 1)}. ${t('home.boardItem', { name: r.name, r: ratingText(r.rating.conservative), n: r.rated_matches })}`)));
    } catch (e) {
      ol.replaceChildren(li(errText(e)));
    }
  }
  // The bot levels, rated apart from the players (`GET /api/v1/leaderboard/bots`).
  const bots = $('bot-board').querySelector('tbody');
  try {
    renderBotBoard(bots, (await api('/api/v1/leaderboard/bots')).bots ?? [], (x) => ratingText(x));
  } catch (e) {
    const tr = document.createElement('tr');
    tr.append(Object.assign(document.createElement('td'), { colSpan: 4, textContent: errText(e) }));
    bots.replaceChildren(tr);
  }
  if (!session) return;
  try {
    const p = await api(`/api/v1/players/${session.player_id}`);
    const of = (m) => ratingText(p.modes.find((x) => x.mode === m)?.rating?.conservative ?? 0);
    $('my-rating').textContent = t('home.myRating', { j: of('journey'), c: of('clash') });
  } catch (e) {
    $('my-rating').textContent = errText(e);
  }
}

async function renderMyMatches() {
  const ul = $('my-matches');
  if (!session) return;
  let list;
  try {
    list = (await api(`/api/v1/players/${session.player_id}/matches?limit=10`)).matches ?? [];
  } catch (e) {
    ul.replaceChildren(li(t('home.mineFailed', { why: errText(e) })));
    return;
  }
  ul.replaceChildren();
  if (!list.length) ul.append(li(t('home.noneYet')));
  for (const m of list) {
    const item = document.createElement('li');
    const a = document.createElement('a');
    const running = m.status === 'running';
    a.href = running ? `#/match/${m.match_id}` : `#/replay/${m.match_id}`;
    const me = m.seats.find((s) => s.player_id === session.player_id);
    const mine = me && m.standings?.find((s) => s.seat === me.seat);
    const params = { mode: modeName(m.mode), when: dateTime(m.started_at) };
    if (running) a.textContent = t('home.mineRunning', params);
    else if (mine) a.textContent = t('home.mineReplayPlace', { ...params, place: mine.place, n: mine.total });
    else a.textContent = t('home.mineReplay', params);
    item.append(a);
    ul.append(item);
  }
}

// ---------- sign in / connection ----------

function saveSession() {
  try {
    localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  } catch {
    // storage may be unavailable (private mode): the session lasts for this page
  }
}

async function signIn(name) {
  const data = await api('/api/v1/guests', { method: 'POST', body: { name } });
  session = { token: data.token, player_id: data.player_id, name, username: null };
  saveSession();
  setError('signin-notice', '');
}

/**
 * Forgets the session on this device: the socket closed for good, the stored token
 * dropped, whatever match, lobby or queue was on screen.
 */
function dropSession() {
  conn?.close();
  conn = null;
  session = null;
  if (live) closePlanner(live);
  live = null;
  lobby = null;
  activeMatches = [];
  rematchCode = null;
  for (const id of ['rematch-box', 'queue-box', 'lobby-box', 'away-box', 'sheet']) $(id).hidden = true;
  localStorage.removeItem(SESSION_KEY);
  $('who').hidden = true;
  setConnStatus(null);
  // No password typed for this session stays in a form.
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[type="password"]'))) input.value = '';
}

/**
 * The header's connection status: message `key` (null: none). A device replaced by
 * another tab or device of the same player (close 4000) is offered "Play here".
 */
function setConnStatus(key, ok = false) {
  const cs = $('conn-status');
  if (key) cs.dataset.key = key;
  else delete cs.dataset.key;
  cs.textContent = key ? t(key) : '';
  cs.classList.toggle('ok', ok);
  $('play-here').hidden = key !== 'conn.replaced';
}

/**
 * Signs this device out: its session ends on the server too (`DELETE
 * /api/v1/sessions/current`; for a guest the guest is gone from this browser, so a
 * guest is asked first: its player, rating and matches cannot be reached again).
 */
function signOut() {
  if (session && session.username === null && !window.confirm(t('signout.guestConfirm'))) return;
  const token = session?.token;
  dropSession();
  if (token) accountsApi(token).signOutSession('current').catch(() => {});
  setError('signin-notice', '');
  location.hash = '#/';
  route();
}

/**
 * The session ended elsewhere (WebSocket close 4002, a REST 401, the account
 * deleted): the token is dropped and the sign-in screen says why (message `key`).
 */
function signedOutTo(key) {
  dropSession();
  setConnStatus('conn.signedOut');
  if (location.hash !== '#/' && location.hash !== '') history.replaceState(null, '', '#/');
  show('signin');
  setError('signin-notice', t(key));
  $('signin-notice').dataset.key = key;
}

/** A session of an account signed in with username and password: it replaces the current one. */
function signedInAs(next) {
  dropSession();
  session = next;
  saveSession();
  setError('signin-notice', '');
  if (location.hash !== '#/') history.replaceState(null, '', '#/');
  connect();
  route();
}

/** Whether this session is a guest or an account (and its name), from the server. */
async function refreshAccount() {
  const s = session;
  if (!s) return;
  try {
    const me = await accountsApi(s.token).me();
    if (session !== s) return;
    updateSession({ name: me.name, username: me.username });
  } catch {
    // a dead token is the socket's to report (not_authenticated, or close 4002)
  }
}

function updateSession(fields) {
  if (!session) return;
  Object.assign(session, fields);
  saveSession();
  $('who-name').textContent = session.name;
  if (live?.ended) renderFinal(live);
}

function connect() {
  $('who').hidden = false;
  $('who-name').textContent = session.name;
  conn = new Connection(session.token);
  conn.onStatus = (key, ok) => setConnStatus(key, ok);
  conn.onAuthFailed = (e) => {
    // An account's token refused at hello: signed out (or expired) meanwhile.
    if (session?.username && e.code === 'not_authenticated') {
      signedOutTo('signin.signedOut');
      return;
    }
    dropSession();
    show('signin');
    setError('signin-error', t('signin.expired', { why: errText(e) }));
  };
  // Close code 4002: this session was signed out (from another device, a password
  // change), expired, or its account was deleted. No reconnect with this token.
  conn.onSignedOut = () => signedOutTo('signin.signedOut');
  conn.onWelcome = (w) => {
    conn.send('subscribe_lobbies');
    session.name = w.name ?? session.name;
    $('who-name').textContent = session.name;
    activeMatches = w.active_matches ?? [];
    const hash = location.hash;
    if (live && !live.ended) {
      // A reconnect brings an away seat back; the server tells only the others
      // (seat_away follows the replay for seats still away).
      if (live.yourSeat && live.away.delete(live.yourSeat)) renderLive(live);
      // Reconnected: the server sends what we missed of a running match after
      // `welcome` (hello carried our last seq); a match that ended meanwhile is asked
      // for; a watched one is watched again.
      if (live.yourSeat) {
        if (!activeMatches.includes(live.matchId)) conn.resync(live.matchId);
      } else conn.send('spectate', { match_id: live.matchId });
    } else if (activeMatches.length && !hash.startsWith('#/replay/') && !hash.startsWith('#/watch/') && !hash.startsWith('#/account')) {
      openMatch(activeMatches[0], true);
    } else {
      route();
    }
  };
  conn.onFrame = onFrame;
  conn.connect();
  refreshAccount();
}

// ---------- frames ----------

function onFrame(f) {
  const d = f.d ?? {};
  switch (f.t) {
    case 'queue_status':
      $('queue-box').hidden = false;
      $('queue-status').textContent = t('home.queueStatus', { mode: modeName(d.mode), n: d.waiting, s: d.bots_in_seconds });
      return;
    case 'lobby_state':
      lobby = d;
      renderLobby();
      return;
    case 'lobby_list':
      openLobbies = d.lobbies ?? [];
      renderOpenLobbies();
      return;
    case 'rematch_offered':
      rematchCode = d.code;
      $('rematch-text').textContent = t('final.rematchOffered', { name: d.host_name });
      $('rematch-box').hidden = false;
      return;
    case 'error':
      if (live && !live.mode && (d.code === 'match_not_found' || d.code === 'not_in_match')) {
        // Nothing to watch or resume (it ended, or it is not ours): show its replay.
        const id = live.matchId;
        live = null;
        location.hash = `#/replay/${id}`;
        return;
      }
      setError('home-error', errText(d));
      if (live) logLine(t('log.server', { why: errText(d) }), 'error');
      return;
    case 'pong':
      return;
    case 'snapshot':
      // A seated player's connection is re-attached by the server after `hello`.
      if (d.your_seat && (!live || (live.matchId !== d.match_id && live.ended))) {
        live = newLive(d.match_id, d.your_seat);
        history.replaceState(null, '', `#/match/${d.match_id}`);
        show('match');
      }
      break;
    case 'match_started':
      // Dice scheme `contributed` (proto/README.md §10): add this seat's randomness.
      // Sent whenever the match has a window: the server alone knows whether it is
      // still open (a device clock may be minutes off); a late one is refused
      // (`contribution_closed`) and changes nothing.
      if (d.your_seat && d.contribution_deadline_ms != null) contributeEntropy(d.match_id);
      if (!live || live.matchId !== d.match_id) {
        live = newLive(d.match_id, d.your_seat ?? null);
        lobby = null;
        $('rematch-box').hidden = true;
        $('queue-box').hidden = true;
        $('lobby-box').hidden = true;
        const want = d.your_seat ? `#/match/${d.match_id}` : `#/watch/${d.match_id}`;
        if (location.hash !== want) history.replaceState(null, '', want);
        show('match');
      }
      break;
    default:
      break;
  }
  if (d.match_id && live && d.match_id === live.matchId) {
    live.queue.push(f);
    pump();
  }
}

function newLive(matchId, yourSeat) {
  if (live?.planner) live.planner.close();
  // A new match starts on the whole board.
  if (board.zoomed) board.setZoom(1);
  autoZoomed = false;
  const l = {
    matchId,
    yourSeat,
    mode: null,
    rules: null,
    seats: [],
    names: {},
    state: initialState('journey', 2),
    turn: null,
    standings: null,
    ended: null,
    queue: [],
    pumping: false,
    offset: 0, // server clock − local clock, ms
    turnDeadline: null,
    matchDeadline: null,
    planner: null,
    away: new Set(), // seats away (proto/README.md §6.2): their turns are passed at once
  };
  $('event-log').replaceChildren();
  $('chat-log').replaceChildren();
  $('final').hidden = true;
  $('plan-panel').hidden = true;
  $('sheet').hidden = true;
  $('direction-set').hidden = false;
  $('anim-wrap').hidden = false;
  $('match-id').textContent = matchId;
  /** @type {HTMLAnchorElement} */ (document.getElementById('watch-link')).href = `#/watch/${matchId}`;
  $('turn-info').textContent = t('match.loading');
  $('view-seat-wrap').hidden = yourSeat !== null;
  board.setViewSeat(SEATS.includes(yourSeat) ? yourSeat : $('view-seat').value);
  board.render(l.state);
  return l;
}

/** Opens a match this player sits in (after a reload: resync from the start). */
function openMatch(matchId, fromWelcome = false) {
  if (live?.matchId === matchId && !live.ended) {
    show('match');
    return;
  }
  live = newLive(matchId, 'pending');
  show('match');
  if (location.hash !== `#/match/${matchId}`) history.replaceState(null, '', `#/match/${matchId}`);
  if (conn && (fromWelcome || conn.ws?.readyState === WebSocket.OPEN)) conn.resync(matchId);
}

function spectate(matchId) {
  if (live?.matchId === matchId) {
    show('match');
    return;
  }
  live = newLive(matchId, null);
  show('match');
  conn.send('spectate', { match_id: matchId });
}

/**
 * Milliseconds per animation step for the turn `f` being shown, given what is still
 * queued behind it: 0 (no animation) when animations are off, the tab is hidden, a
 * snapshot or the end is waiting, three turns are behind, or our own turn has
 * arrived; otherwise about 3 s per turn, less when turns queue up.
 */
function stepMs(f) {
  if (!$('anim-toggle').checked || document.hidden) return 0;
  if (matchMedia('(prefers-reduced-motion: reduce)').matches) return 0;
  const q = live.queue;
  const pending = q.filter((x) => x.t === 'turn_resolved').length;
  if (pending >= 3 || q.some((x) => x.t === 'snapshot' || x.t === 'match_ended')) return 0;
  if (live.yourSeat && q.some((x) => x.t === 'turn_started' && x.d.seat === live.yourSeat)) return 0;
  const steps = f.d.events.reduce((a, e) => a + (e.type === 'move' ? e.path.length : e.type === 'capture' || e.type === 'blocked' ? 3 : 1), 0) || 1;
  const ms = Math.min(110, 3000 / (pending + 1) / steps);
  return ms < 12 ? 0 : ms;
}

async function pump() {
  const l = live;
  if (!l || l.pumping) return;
  l.pumping = true;
  try {
    while (l.queue.length && live === l) {
      const f = l.queue.shift();
      try {
        await handleMatchFrame(l, f);
      } catch (e) {
        console.error('frame failed', f, e);
      }
    }
  } finally {
    l.pumping = false;
  }
}

function setNames(l, seats) {
  l.seats = seats;
  l.names = Object.fromEntries(seats.map((s) => [s.seat, seatShownName(s)]));
  board.setSeatNames(l.names);
}

/**
 * Server clock minus device clock, from a `match_started` that arrived at local
 * time `rx`: it is sent as the match starts, at match_deadline_ms − match_seconds.
 */
function matchStartOffset(d, rx) {
  return d.match_deadline_ms - d.rules.match_seconds * 1000 - rx;
}

function setTurn(l, t, rx) {
  l.turn = t;
  if (!t) {
    l.turnDeadline = null;
    return;
  }
  // proto/README.md §7: the frame is stamped as of its sending (a replay too), so
  // the server's clock is now_ms at arrival `rx`; the countdown never reads a
  // device clock against a deadline.
  l.offset = t.now_ms - rx;
  l.turnDeadline = t.turn_deadline_ms;
  l.matchDeadline = rx + l.offset + t.match_remaining_ms;
  const seat = l.state.seats[t.seat];
  seat.rolls = [...t.roll_store];
  seat.exit_credits = t.exit_credits;
}

async function handleMatchFrame(l, f) {
  const d = f.d;
  switch (f.t) {
    case 'match_started': {
      l.mode = d.mode;
      l.rules = d.rules;
      if (l.yourSeat === 'pending') l.yourSeat = d.your_seat ?? null;
      setNames(l, d.seats);
      l.state = initialState(d.mode, d.rules.start_exit_credits);
      // Until the first turn_started: the server's clock from the match's start.
      l.offset = matchStartOffset(d, f.rx);
      l.matchDeadline = d.match_deadline_ms;
      if (l.yourSeat) board.setViewSeat(l.yourSeat);
      $('view-seat-wrap').hidden = !!l.yourSeat;
      $('leave-match').hidden = !l.yourSeat;
      logLine(`${t('log.started', { mode: modeName(d.mode), seats: d.seats.map((s) => `${seatName(s.seat)}: ${l.names[s.seat]}`).join(', ') })}${l.yourSeat ? ` ${t('log.youPlay', { seat: seatName(l.yourSeat) })}` : ''}`);
      board.render(l.state);
      break;
    }
    case 'snapshot': {
      l.mode = d.mode;
      l.rules = d.rules;
      l.yourSeat = d.your_seat ?? null;
      setNames(l, d.seats);
      l.state = stateFromPosition(d.position);
      l.offset = d.clocks.now_ms - f.rx;
      l.matchDeadline = d.clocks.match_deadline_ms;
      l.turn = d.turn ?? null;
      l.turnDeadline = d.clocks.turn_deadline_ms ?? null;
      l.standings = null;
      l.away.clear(); // the server sends seat_away again right after a snapshot
      if (l.yourSeat) board.setViewSeat(l.yourSeat);
      $('view-seat-wrap').hidden = !!l.yourSeat;
      $('leave-match').hidden = !l.yourSeat || !!d.ended;
      board.render(l.state);
      logLine(t('log.synced', { n: d.turns_played }));
      if (d.ended) endMatch(l, d.ended);
      break;
    }
    case 'turn_started': {
      setTurn(l, d, f.rx);
      logLine(`${t('log.rolled', { k: d.turn_number, who: who(l, d.seat), dice: numList(d.dice) })}${d.dropped.length ? ` ${t('plan.dropped', { dice: numList(d.dropped) })}` : ''}`);
      break;
    }
    case 'turn_resolved': {
      if (l.planner && d.seat === l.yourSeat) closePlanner(l);
      if (l.turn?.turn_number === d.turn_number) l.turn = null;
      $('turn-info').textContent = t('turn.resolved', { who: who(l, d.seat), what: d.kind === 'timeout' ? t('turn.timeRanOut') : planText(d.plan) });
      removePlanRolls(l.state, d.seat, d.plan);
      await board.animate(l.state, d.events, () => (live === l ? stepMs(f) : 0));
      // Protocol 3: `turn_resolved` carries no position; the events just applied give
      // it. The server's standings check that they did: a client that lost track asks
      // for a snapshot (resync from 0), which carries the whole position.
      const mine = standings(l.state);
      const off = d.standings.find((s) => mine.find((m) => m.seat === s.seat)?.total !== s.total);
      if (off) {
        console.error(`turn ${d.turn_number}: client totals differ from the server's (${off.seat}); asking for a snapshot`);
        conn?.snapshot(l.matchId);
      }
      for (const ev of d.events) logLine(describeEvent(ev, board, l.names), `ev-${ev.type}`);
      if (!d.events.length) logLine(t(d.kind === 'timeout' ? 'log.timedOut' : 'log.passed', { who: who(l, d.seat) }));
      l.standings = d.standings;
      break;
    }
    case 'match_ended':
      endMatch(l, d);
      break;
    case 'dice_sealed': {
      // Shows that the dice use this seat's own contribution (§10).
      const mine = d.contributions.find((c) => c.seat === l.yourSeat);
      const sent = sentEntropy.get(l.matchId);
      const used = mine && sent && mine.entropy === sent;
      const players = d.contributions.filter((c) => !c.defaulted).length;
      logLine(t(used ? 'log.diceSealedMine' : 'log.diceSealed', { players }));
      break;
    }
    case 'seat_away':
      l.away.add(d.seat);
      logLine(t('log.away', { who: who(l, d.seat) }));
      break;
    case 'seat_back':
      if (l.away.delete(d.seat)) logLine(t('log.back', { who: who(l, d.seat) }));
      break;
    case 'seat_left':
      logLine(t('log.left', { who: who(l, d.seat) }));
      if (d.seat === l.yourSeat) $('leave-match').hidden = true;
      break;
    case 'chat': {
      const li = document.createElement('li');
      li.textContent = `${d.seat ? t('seat.withName', { seat: seatName(d.seat), name: d.name }) : d.name}: ${d.text}`;
      $('chat-log').append(li);
      break;
    }
    default:
      break;
  }
  renderLive(l);
}

function who(l, seat) {
  const n = l.names[seat];
  if (!n) return seatName(seat);
  return t(seat === l.yourSeat ? 'seat.withNameYou' : 'seat.withName', { seat: seatName(seat), name: n });
}

function endMatch(l, d) {
  l.ended = d;
  l.turn = null;
  l.turnDeadline = null;
  closePlanner(l);
  $('final').hidden = false;
  renderFinal(l);
  /** @type {HTMLAnchorElement} */ (document.getElementById('final-replay')).href = `#/replay/${l.matchId}`;
  $('turn-info').textContent = resultText(l);
  logLine(t(endReasonKey(d.reason)));
  $('leave-match').hidden = true;
  // Direction and animation no longer apply once the match is over.
  $('direction-set').hidden = true;
  $('anim-wrap').hidden = true;
  activeMatches = activeMatches.filter((m) => m !== l.matchId);
  // The results, not the board, are what the player looks at now.
  $('final').scrollIntoView({ block: 'start' });
}

/** The message key of a match's end reason (rule 9.1, and the server's `abandoned`). */
export function endReasonKey(reason) {
  return { clock: 'end.clock', abandoned: 'end.abandoned' }[reason] ?? 'end.finished';
}

function resultText(l) {
  const top = l.ended.standings[0];
  return t('end.winner', { who: who(l, top.seat), n: top.total });
}

function renderFinal(l) {
  const d = l.ended;
  $('final-reason').textContent = t(endReasonKey(d.reason));
  renderStandings($('final-standings').querySelector('tbody'), d.standings, l.names, l.yourSeat);
  // A rated seat's change (match_ended standings carry it for rated human seats).
  const mine = d.standings.find((s) => s.seat === l.yourSeat)?.rating;
  $('final-rating').textContent = mine ? t('final.ratingChange', { r: ratingText(mine.after.conservative), d: ratingText(mine.change, true) }) : '';
  // Only a player of the match may offer a rematch.
  $('final-rematch').hidden = !l.yourSeat;
  // A guest's rating lives only in this browser until the guest is claimed.
  $('final-claim').hidden = !(mine && session && session.username === null);
}

function closePlanner(l) {
  if (!l.planner) return;
  if (autoZoomed) {
    board.setZoom(1);
    autoZoomed = false;
  }
  l.planner.close();
  l.planner = null;
  $('plan-panel').hidden = true;
  $('plan-panel').replaceChildren();
}

function renderLive(l) {
  if (live !== l) return;
  const rows = l.standings ?? standings(l.state);
  const turn = l.turn;
  renderScoreboard($('scoreboard').querySelector('tbody'), rows, l.state, l.names, turn?.seat, l.yourSeat, l.away);
  // This player's own seat is away: its turns are passed until it sends a match message.
  $('away-box').hidden = !(l.yourSeat && l.away.has(l.yourSeat) && !l.ended);
  if (turn && !l.ended) {
    const mine = turn.seat === l.yourSeat;
    if (mine) {
      $('turn-info').textContent = t('turn.yours', { k: turn.turn_number });
      if (!l.planner || l.planner.ctx.turn.turn_number !== turn.turn_number) {
        closePlanner(l);
        openPlanner(l, turn);
      }
    } else {
      closePlanner(l);
      $('turn-info').textContent = t('turn.toMove', { who: who(l, turn.seat), k: turn.turn_number });
    }
  }
  board.render(l.state);
  if (l.planner) {
    l.planner.ctx.state = l.state;
    l.planner.render();
  }
  tickClocks();
}

function openPlanner(l, turn) {
  const panel = $('plan-panel');
  panel.hidden = false;
  l.planner = new PlanBuilder(panel, {
    seat: l.yourSeat,
    state: l.state,
    turn,
    rules: l.rules,
    board,
    getDirection: () => checkedValue('direction'),
    submit: (plan) => conn.request('submit_turn', { match_id: l.matchId, turn_number: turn.turn_number, plan }),
    pass: () => conn.request('pass', { match_id: l.matchId, turn_number: turn.turn_number }),
    preview: (plan) => conn.preview({ match_id: l.matchId, turn_number: turn.turn_number, plan }),
    standingsNow: () => l.standings ?? standings(l.state),
    sheet: $('sheet'),
    toggleDirection: () => {
      const next = checkedValue('direction') === 'forward' ? 'backward' : 'forward';
      /** @type {HTMLInputElement} */ (document.querySelector(`input[name="direction"][value="${next}"]`)).click();
    },
  });
  // On a phone the board zooms in for the turn: pieces and destinations become
  // 44 px tap targets; the sheet's zoom button shows the whole board again.
  // A zoom the player chose stays; the board then shows the player's own pieces.
  if (board.tapZoom() > 1.05 && !board.zoomed) {
    board.setZoom(board.tapZoom());
    autoZoomed = true;
  }
  // Centred on the player's pieces (all of them when they fit, else those out of the Yard).
  const mine = Object.values(l.state.seats[l.yourSeat].pieces).filter((loc) => loc !== 'home');
  const out = mine.filter((loc) => loc !== 'yard');
  const k = board.svg.clientWidth / 1000;
  const fits = (ps) => ['clientWidth', 'clientHeight'].every((d, i) => (Math.max(...ps.map((q) => q[i])) - Math.min(...ps.map((q) => q[i]))) * k < board.frame[d] - 40);
  const pts = (locs) => locs.map((loc) => board.point(l.yourSeat, loc));
  if (mine.length) board.centerOn([pts(mine), pts(out)].find((ps) => ps.length && fits(ps)) ?? pts(out).slice(0, 1));
  l.planner.render();
  // Take the focus only when it is not busy elsewhere (for example in the chat box).
  const busy = document.activeElement && document.activeElement !== document.body && !panel.contains(document.activeElement);
  if (!busy) /** @type {HTMLElement | null} */ (panel.querySelector('#roll-store button, #plan-submit'))?.focus({ preventScroll: true });
}

function logLine(text, cls = '') {
  const ol = $('event-log');
  const li = document.createElement('li');
  li.textContent = text;
  if (cls) li.className = cls;
  ol.append(li);
  while (ol.children.length > 150) ol.firstChild.remove();
  const box = $('event-log-box');
  box.scrollTop = box.scrollHeight;
}

function tickClocks() {
  const l = live;
  if (!l || document.body.dataset.screen !== 'match') return;
  const now = Date.now() + l.offset;
  const tc = $('turn-clock');
  if (l.turnDeadline && !l.ended) {
    const left = l.turnDeadline - now;
    tc.textContent = `${clock(left)}${l.turn ? ` · ${seatName(l.turn.seat)}` : ''}`;
    tc.classList.toggle('urgent', left < 5000 && l.turn?.seat === l.yourSeat);
  } else {
    tc.textContent = '–';
    tc.classList.remove('urgent');
  }
  $('match-clock').textContent = l.matchDeadline ? (l.ended ? t('match.over') : clock(l.matchDeadline - now)) : '–';
}
setInterval(tickClocks, 250);
// Keep the list of running matches fresh while the lobby is shown.
setInterval(() => {
  if (document.body.dataset.screen === 'home' && !document.hidden) renderLiveMatches();
}, 5000);

// ---------- lobby ----------

function renderLobby() {
  const box = $('lobby-box');
  if (!lobby) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  $('lobby-code-show').textContent = lobby.code;
  $('lobby-mode-show').textContent = `· ${modeName(lobby.mode)}${lobby.fill_with_bots ? ` · ${t('home.botsFill')} (${t(`level.${lobby.bot_level ?? 'greedy'}`)})` : ''}`;
  const ol = $('lobby-members');
  ol.replaceChildren();
  for (const m of lobby.members) {
    let name = m.player_id === session?.player_id ? t('player.you', { name: m.name }) : m.name;
    if (m.player_id === lobby.host) name = t('home.host', { name });
    ol.append(li(name));
  }
  $('lobby-start').hidden = lobby.host !== session?.player_id;
}

function wireHome() {
  const quick = (mode) => async () => {
    setError('home-error', '');
    try {
      await conn.request('join_queue', { mode, bot_level: $('qp-level').value });
      $('queue-box').hidden = false;
      if (!$('queue-status').textContent) $('queue-status').textContent = t('home.queueWaiting', { mode: modeName(mode) });
    } catch (e) {
      setError('home-error', errText(e));
    }
  };
  $('qp-journey').addEventListener('click', quick('journey'));
  $('qp-clash').addEventListener('click', quick('clash'));
  $('queue-leave').addEventListener('click', async () => {
    try {
      await conn.request('leave_queue');
    } catch (e) {
      setError('home-error', errText(e));
    }
    $('queue-box').hidden = true;
    $('queue-status').textContent = '';
  });
  $('lobby-create').addEventListener('submit', async (e) => {
    e.preventDefault();
    setError('home-error', '');
    const mode = checkedValue('lobby-mode');
    conn.send('create_lobby', { mode, private: !$('lobby-public').checked, fill_with_bots: $('lobby-bots').checked, bot_level: $('lobby-level').value });
  });
  $('lobby-join').addEventListener('submit', (e) => {
    e.preventDefault();
    setError('home-error', '');
    const code = $('lobby-code').value.trim().toUpperCase();
    if (code) conn.send('join_lobby', { code });
  });
  $('lobby-start').addEventListener('click', () => {
    setError('home-error', '');
    conn.send('start_lobby');
  });
  // Back from away (proto/README.md §6.2): any match message brings the seat back;
  // `resync` also fills in whatever was missed.
  $('away-back').addEventListener('click', () => {
    if (!live) return;
    // The seat is back once the server has the resync; it tells only the others
    // (proto/README.md §6.2), so this client drops its own mark itself.
    conn.resync(live.matchId);
    live.away.delete(live.yourSeat);
    logLine(t('log.back', { who: who(live, live.yourSeat) }));
    renderLive(live);
  });
  // Leave the running match for good (`leave_match`): a bot plays the seat.
  $('leave-match').addEventListener('click', async () => {
    if (!live || !window.confirm(t('match.leaveConfirm'))) return;
    const id = live.matchId;
    try {
      await conn.request('leave_match', { match_id: id });
    } catch (e) {
      logLine(errText(e));
      return;
    }
    activeMatches = activeMatches.filter((m) => m !== id);
    // The match is over for this player: forget it, so that the route shows home.
    if (live?.matchId === id) {
      closePlanner(live);
      live = null;
    }
    location.hash = '#/';
    route();
  });
  $('final-rematch').addEventListener('click', () => {
    if (!live?.ended) return;
    setError('home-error', '');
    conn.send('offer_rematch', { match_id: live.matchId });
    location.hash = '#/';
  });
  $('rematch-accept').addEventListener('click', () => {
    if (!rematchCode) return;
    setError('home-error', '');
    conn.send('join_lobby', { code: rematchCode });
    $('rematch-box').hidden = true;
    location.hash = '#/';
  });
  $('lobby-leave').addEventListener('click', () => {
    conn.send('leave_lobby');
    lobby = null;
    renderLobby();
  });
  $('watch-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const id = $('watch-id').value.trim();
    if (id) location.hash = `#/watch/${id}`;
  });
  $('watch-replay').addEventListener('click', () => {
    const id = $('watch-id').value.trim();
    if (id) location.hash = `#/replay/${id}`;
  });
}

// ---------- routing ----------

async function route() {
  const hash = location.hash || '#/';
  const [, kind, id] = /^#\/(\w+)?\/?([\w-]*)/.exec(hash) ?? [];
  if (kind === 'replay' && id) {
    show('replay');
    const known = live?.matchId === id ? live : null;
    await replay.load(id, known?.yourSeat, !!known?.ended, session?.player_id);
    return;
  }
  if (!session) {
    show('signin');
    $('signin-name').focus();
    return;
  }
  if (kind === 'account') {
    show('account');
    await renderAccount({ focus: id === 'claim' ? 'claim' : null });
    return;
  }
  if (kind === 'watch' && id) {
    if (conn?.ws?.readyState === WebSocket.OPEN) spectate(id);
    return;
  }
  if (kind === 'match' && id) {
    if (live?.matchId === id) show('match');
    else if (conn?.ws?.readyState === WebSocket.OPEN) openMatch(id);
    return;
  }
  if (live?.ended || (live && !live.yourSeat)) live = null;
  if (live && !live.ended) {
    show('match');
    return;
  }
  show('home');
  renderLiveMatches();
  renderMyMatches();
  renderRatings();
}

/** The header's language menu; a switch re-renders what is on screen. */
function wireLanguage() {
  const sel = $('lang');
  for (const { code, name } of LANGUAGES) sel.append(Object.assign(document.createElement('option'), { value: code, textContent: name, lang: code }));
  sel.value = currentLanguage();
  sel.addEventListener('change', () => setLanguage(sel.value));
  onLanguageChange((code) => {
    sel.value = code;
    const cs = $('conn-status');
    if (cs.dataset.key) cs.textContent = t(cs.dataset.key);
    board.relabel();
    if (lobby) renderLobby();
    if (document.body.dataset.screen === 'home') {
      renderLiveMatches();
      renderMyMatches();
      renderRatings();
    }
    renderOpenLobbies();
    relabelAccount();
    const notice = $('signin-notice');
    if (notice.textContent && notice.dataset.key) notice.textContent = t(notice.dataset.key);
    if (live) {
      if (live.seats.length) setNames(live, live.seats);
      if (live.ended) {
        renderFinal(live);
        $('turn-info').textContent = resultText(live);
      }
      renderLive(live);
    }
  });
}

function init() {
  wireLanguage();
  $('signin-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    setError('signin-error', '');
    const name = $('signin-name').value.trim();
    if (!name) return;
    try {
      await signIn(name);
      connect();
    } catch (err) {
      setError('signin-error', t('signin.failed', { why: errText(err) }));
    }
  });
  $('signout').addEventListener('click', signOut);
  // Connects this device again: the other tab or device of this player stops in turn
  // (its socket is the one replaced now); a session signed out meanwhile is told so.
  $('play-here').addEventListener('click', () => conn?.connect());
  initAccount({
    session: () => session,
    update: updateSession,
    signedIn: signedInAs,
    signedOut: signedOutTo,
    signOutHere: signOut,
  });
  wireHome();
  /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="direction"]')).forEach((r) =>
    r.addEventListener('change', () => {
      board.setDirection(r.value);
      if (live) {
        board.render(live.state);
        live.planner?.render();
      }
    }));
  $('zoom-in').addEventListener('click', () => board.zoomStep(1));
  $('zoom-out').addEventListener('click', () => board.zoomStep(-1));
  $('zoom-fit').addEventListener('click', () => board.setZoom(1));
  zoomButtons();
  $('view-seat').addEventListener('change', (e) => {
    board.setViewSeat(/** @type {HTMLSelectElement} */ (e.target).value);
    if (live) {
      board.setSeatNames(live.names);
      board.render(live.state);
    }
  });
  $('chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('chat-text').value.trim();
    if (text && live) conn.send('chat', { match_id: live.matchId, text });
    $('chat-text').value = '';
  });
  window.addEventListener('hashchange', route);
  session = loadSession();
  if (session?.token) connect();
  else route();
}

// Exposed for the browser test and for debugging in the console.
/** @type {any} */ (window).ludo = {
  get live() {
    return live;
  },
  get session() {
    return session;
  },
  get conn() {
    return conn;
  },
  board,
  dieSvg,
  SEATS,
};

init();
