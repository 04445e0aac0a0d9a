// The browser client: sign-in as a guest, quick play and private lobbies, live
// matches (play or spectate) with animated turns, the plan builder, clocks and
// scores, reconnect with resync, and the replay viewer. Routes (location.hash):
// `#/` lobby, `#/match/<id>` a match you play, `#/watch/<id>` spectate,
// `#/replay/<id>` a finished match's replay.

import { api, Connection } from './net.js';
import { Board, describeEvent } from './board.js';
import { PlanBuilder, dieSvg } from './plan.js';
import { ReplayViewer } from './replay.js';
import { SEATS } from './notation.js';
import { initialState, stateFromPosition, removePlanRolls, standings, diffState } from './state.js';
import { renderScoreboard, renderStandings, planText, clock, cap } from './ui.js';

const $ = (id) => document.getElementById(id);
const SESSION_KEY = 'ludo.session';

let session = null; // {token, player_id, name}
let conn = null;
let live = null; // the match on screen (see newLive)
let lobby = null;
let activeMatches = [];
const board = new Board($('board'), { onPieceClick: (seat, piece) => live?.planner?.setTarget(piece) });
const replay = new ReplayViewer();

// ---------- small helpers ----------

function show(screen) {
  for (const s of document.querySelectorAll('.screen')) s.hidden = s.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
}

function setError(id, text) {
  $(id).textContent = text ?? '';
}

function errText(e) {
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? e);
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
    ul.replaceChildren(Object.assign(document.createElement('li'), { textContent: `Could not load the running matches: ${errText(e)}` }));
    return;
  }
  // Rebuild only when the list changed, so a focused link keeps its focus.
  const key = list.slice(0, 10).map((m) => m.id).join(',');
  if (ul.dataset.key === key && ul.children.length) return;
  ul.dataset.key = key;
  ul.replaceChildren();
  if (!list.length) ul.append(Object.assign(document.createElement('li'), { textContent: 'None right now.' }));
  for (const m of list.slice(0, 10)) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `#/watch/${m.id}`;
    a.textContent = `${cap(m.mode)} · ${m.seats.map((x) => x.name).join(', ')} · since ${new Date(m.started_at).toLocaleTimeString()}`;
    li.append(a);
    ul.append(li);
  }
}

async function renderMyMatches() {
  const ul = $('my-matches');
  if (!session) return;
  let list;
  try {
    list = (await api(`/api/v1/players/${session.player_id}/matches?limit=10`)).matches ?? [];
  } catch (e) {
    ul.replaceChildren(Object.assign(document.createElement('li'), { textContent: `Could not load your matches: ${errText(e)}` }));
    return;
  }
  ul.replaceChildren();
  if (!list.length) ul.append(Object.assign(document.createElement('li'), { textContent: 'None yet.' }));
  for (const m of list) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    const running = m.status === 'running';
    a.href = running ? `#/match/${m.id}` : `#/replay/${m.id}`;
    const when = new Date(m.started_at).toLocaleString();
    const me = m.seats.find((s) => s.player_id === session.player_id);
    const place = me?.result ? ` · place ${me.result.place}, ${me.result.total} points` : '';
    a.textContent = `${cap(m.mode)} · ${when}${running ? ' · running: resume' : ` · replay${place}`}`;
    li.append(a);
    ul.append(li);
  }
}

// ---------- sign in / connection ----------

async function signIn(name) {
  const data = await api('/api/v1/guests', { method: 'POST', body: { name } });
  session = { token: data.token, player_id: data.player_id, name };
  localStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

function signOut() {
  conn?.close();
  conn = null;
  session = null;
  live = null;
  localStorage.removeItem(SESSION_KEY);
  $('who').hidden = true;
  location.hash = '#/';
  route();
}

function connect() {
  $('who').hidden = false;
  $('who-name').textContent = session.name;
  conn = new Connection(session.token);
  conn.onStatus = (text, ok) => {
    $('conn-status').textContent = text;
    $('conn-status').classList.toggle('ok', ok);
  };
  conn.onAuthFailed = (e) => {
    localStorage.removeItem(SESSION_KEY);
    session = null;
    $('who').hidden = true;
    show('signin');
    setError('signin-error', `Your guest session is no longer valid (${errText(e)}). Please enter your name again.`);
  };
  conn.onWelcome = (w) => {
    session.name = w.name ?? session.name;
    $('who-name').textContent = session.name;
    activeMatches = w.active_matches ?? [];
    const hash = location.hash;
    if (live && !live.ended) {
      // Reconnected: ask for what we missed (or watch again).
      if (live.yourSeat) conn.resync(live.matchId);
      else conn.send('spectate', { match_id: live.matchId });
    } else if (activeMatches.length && !hash.startsWith('#/replay/') && !hash.startsWith('#/watch/')) {
      openMatch(activeMatches[0], true);
    } else {
      route();
    }
  };
  conn.onFrame = onFrame;
  conn.connect();
}

// ---------- frames ----------

function onFrame(f) {
  const d = f.d ?? {};
  switch (f.t) {
    case 'queue_status':
      $('queue-box').hidden = false;
      $('queue-status').textContent = `Waiting for a ${d.mode} match: ${d.waiting} player${d.waiting === 1 ? '' : 's'} in the queue; bots fill the empty seats in ${d.bots_in_seconds} s.`;
      return;
    case 'lobby_state':
      lobby = d;
      renderLobby();
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
      if (live) logLine(`Server: ${errText(d)}`, 'error');
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
      if (!live || live.matchId !== d.match_id) {
        live = newLive(d.match_id, d.your_seat ?? null);
        lobby = null;
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
  const l = {
    matchId,
    yourSeat,
    mode: null,
    rules: null,
    seats: [],
    names: {},
    state: initialState('journey', 2),
    turn: null,
    scores: null,
    ended: null,
    queue: [],
    pumping: false,
    offset: 0, // server clock − local clock, ms
    turnDeadline: null,
    matchDeadline: null,
    planner: null,
  };
  $('event-log').replaceChildren();
  $('chat-log').replaceChildren();
  $('final').hidden = true;
  $('plan-panel').hidden = true;
  $('match-id').textContent = matchId;
  $('watch-link').href = `#/watch/${matchId}`;
  $('turn-info').textContent = 'Loading the match…';
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
  l.names = Object.fromEntries(seats.map((s) => [s.seat, s.name]));
  board.setSeatNames(l.names);
}

function setTurn(l, t, rx) {
  l.turn = t;
  if (!t) {
    l.turnDeadline = null;
    return;
  }
  l.offset = t.turn_deadline - t.turn_remaining_ms - rx;
  l.turnDeadline = t.turn_deadline;
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
      l.matchDeadline = d.match_deadline;
      if (l.yourSeat) board.setViewSeat(l.yourSeat);
      $('view-seat-wrap').hidden = !!l.yourSeat;
      logLine(`Match started (${d.mode}). ${d.seats.map((s) => `${cap(s.seat)}: ${s.name}`).join(', ')}.${l.yourSeat ? ` You play ${l.yourSeat}.` : ''}`);
      board.render(l.state);
      break;
    }
    case 'snapshot': {
      l.mode = d.mode;
      l.rules = d.rules;
      l.yourSeat = d.your_seat ?? null;
      setNames(l, d.seats);
      l.state = stateFromPosition(d.position);
      l.offset = d.clocks.now - f.rx;
      l.matchDeadline = d.clocks.match_deadline;
      l.turn = d.turn ?? null;
      l.turnDeadline = d.clocks.turn_deadline ?? null;
      l.scores = null;
      if (l.yourSeat) {
        board.setViewSeat(l.yourSeat);
        }
      $('view-seat-wrap').hidden = !!l.yourSeat;
      board.render(l.state);
      logLine(`Synchronised: ${d.turns_played} turns played.`);
      if (d.ended) endMatch(l, d.ended);
      break;
    }
    case 'turn_started': {
      setTurn(l, d, f.rx);
      logLine(`Turn ${d.turn_number}: ${who(l, d.seat)} rolled ${d.dice.join(', ')}${d.dropped.length ? ` (dropped ${d.dropped.join(', ')})` : ''}.`);
      break;
    }
    case 'turn_resolved': {
      if (l.planner && d.seat === l.yourSeat) closePlanner(l);
      if (l.turn?.turn_number === d.turn_number) l.turn = null;
      $('turn-info').textContent = `${who(l, d.seat)}: ${d.kind === 'timeout' ? 'time ran out — passed' : planText(d.plan)}`;
      removePlanRolls(l.state, d.seat, d.plan);
      await board.animate(l.state, d.events, () => (live === l ? stepMs(f) : 0));
      if (d.position) {
        // The server's position after the turn is authoritative; the events applied
        // here must have reached it.
        const server = stateFromPosition(d.position);
        const diff = diffState(l.state, server);
        if (diff) console.error(`turn ${d.turn_number}: client state differs: ${diff}`);
        l.state = server;
      }
      for (const ev of d.events) logLine(describeEvent(ev, board, l.names), `ev-${ev.type}`);
      if (!d.events.length) logLine(`${who(l, d.seat)} ${d.kind === 'timeout' ? 'timed out' : 'passed'}.`);
      l.scores = d.scores;
      break;
    }
    case 'match_ended':
      endMatch(l, d);
      break;
    case 'chat': {
      const li = document.createElement('li');
      li.textContent = `${d.name}${d.seat ? ` (${d.seat})` : ''}: ${d.text}`;
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
  return n ? `${cap(seat)} (${n}${seat === l.yourSeat ? ', you' : ''})` : cap(seat);
}

function endMatch(l, d) {
  l.ended = d;
  l.turn = null;
  l.turnDeadline = null;
  closePlanner(l);
  $('final').hidden = false;
  $('final-reason').textContent = d.reason === 'clock' ? 'The match clock ran out.' : 'Every seat has finished.';
  renderStandings($('final-standings').querySelector('tbody'), d.standings, l.names, l.yourSeat);
  $('final-replay').href = `#/replay/${l.matchId}`;
  $('turn-info').textContent = `Match over. ${cap(d.standings[0].seat)} wins with ${d.standings[0].total} points.`;
  logLine(`Match over (${d.reason === 'clock' ? 'clock' : 'all finished'}).`);
  activeMatches = activeMatches.filter((m) => m !== l.matchId);
}

function closePlanner(l) {
  if (!l.planner) return;
  l.planner.close();
  l.planner = null;
  $('plan-panel').hidden = true;
  $('plan-panel').replaceChildren();
}

function renderLive(l) {
  if (live !== l) return;
  const rows = l.scores ?? standings(l.state);
  renderScoreboard($('scoreboard').querySelector('tbody'), rows, l.state, l.names, l.turn?.seat, l.yourSeat);
  const t = l.turn;
  if (t && !l.ended) {
    const mine = t.seat === l.yourSeat;
    if (mine) {
      $('turn-info').textContent = `Your turn (turn ${t.turn_number}).`;
      if (!l.planner || l.planner.ctx.turn.turn_number !== t.turn_number) {
        closePlanner(l);
        openPlanner(l, t);
      }
    } else {
      closePlanner(l);
      $('turn-info').textContent = `${who(l, t.seat)} to move (turn ${t.turn_number}).`;
    }
  }
  board.render(l.state);
  if (l.planner) {
    l.planner.ctx.state = l.state;
    l.planner.render();
  }
  tickClocks();
}

function openPlanner(l, t) {
  const panel = $('plan-panel');
  panel.hidden = false;
  l.planner = new PlanBuilder(panel, {
    seat: l.yourSeat,
    state: l.state,
    turn: t,
    rules: l.rules,
    board,
    getDirection: () => document.querySelector('input[name="direction"]:checked').value,
    submit: (plan) => conn.request('submit_turn', { match_id: l.matchId, turn_number: t.turn_number, plan }),
    pass: () => conn.request('pass', { match_id: l.matchId, turn_number: t.turn_number }),
  });
  l.planner.render();
  // Take the focus only when it is not busy elsewhere (for example in the chat box).
  const busy = document.activeElement && document.activeElement !== document.body && !panel.contains(document.activeElement);
  if (!busy) panel.querySelector('#roll-store button, #plan-submit')?.focus({ preventScroll: true });
}

function logLine(text, cls = '') {
  const ol = $('event-log');
  const li = document.createElement('li');
  li.textContent = text;
  if (cls) li.className = cls;
  ol.append(li);
  while (ol.children.length > 150) ol.firstChild.remove();
  ol.scrollTop = ol.scrollHeight;
}

function tickClocks() {
  const l = live;
  if (!l || document.body.dataset.screen !== 'match') return;
  const now = Date.now() + l.offset;
  const tc = $('turn-clock');
  if (l.turnDeadline && !l.ended) {
    const left = l.turnDeadline - now;
    tc.textContent = `${clock(left)}${l.turn ? ` · ${cap(l.turn.seat)}` : ''}`;
    tc.classList.toggle('urgent', left < 5000 && l.turn?.seat === l.yourSeat);
  } else {
    tc.textContent = '–';
    tc.classList.remove('urgent');
  }
  $('match-clock').textContent = l.matchDeadline ? (l.ended ? 'over' : clock(l.matchDeadline - now)) : '–';
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
  $('lobby-mode-show').textContent = `· ${lobby.mode}${lobby.fill_with_bots ? ' · bots fill empty seats' : ''}`;
  const ol = $('lobby-members');
  ol.replaceChildren();
  for (const m of lobby.members) {
    const li = document.createElement('li');
    li.textContent = `${m.name}${m.player_id === lobby.host ? ' (host)' : ''}${m.player_id === session?.player_id ? ' — you' : ''}`;
    ol.append(li);
  }
  $('lobby-start').hidden = lobby.host !== session?.player_id;
}

function wireHome() {
  const quick = (mode) => async () => {
    setError('home-error', '');
    try {
      await conn.request('join_queue', { mode });
      $('queue-box').hidden = false;
      if (!$('queue-status').textContent) $('queue-status').textContent = `Waiting for a ${mode} match…`;
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
    const mode = document.querySelector('input[name="lobby-mode"]:checked').value;
    conn.send('create_lobby', { mode, private: true, fill_with_bots: $('lobby-bots').checked });
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
    await replay.load(id, known?.yourSeat, !!known?.ended);
    return;
  }
  if (!session) {
    show('signin');
    $('signin-name').focus();
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
}

function init() {
  $('signin-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    setError('signin-error', '');
    const name = $('signin-name').value.trim();
    if (!name) return;
    try {
      await signIn(name);
      connect();
    } catch (err) {
      setError('signin-error', `Could not sign in: ${errText(err)}`);
    }
  });
  $('signout').addEventListener('click', signOut);
  wireHome();
  document.querySelectorAll('input[name="direction"]').forEach((r) =>
    r.addEventListener('change', () => {
      board.setDirection(r.value);
      if (live) {
        board.render(live.state);
        live.planner?.render();
      }
    }));
  $('view-seat').addEventListener('change', (e) => {
    board.setViewSeat(e.target.value);
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
window.ludo = {
  get live() {
    return live;
  },
  get session() {
    return session;
  },
  dieSvg,
  SEATS,
};

init();
