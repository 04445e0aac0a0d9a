//! Resolution of a validated plan (rules §3, §5, §6, §7, §8): step-by-step movement,
//! moving groups, blockades, captures, checkpoints, completion and the next seat.

use crate::board::{is_fort, step, Direction, Location, PieceId, Seat};
use crate::checkpoint::{Checkpoint, Record};
use crate::event::Event;
use crate::plan::{Plan, PlanError, ValidPlan};
use crate::position::Position;
use crate::rules::{Mode, RuleSet};

/// The guardians of one moving unit (at most four), lowest number first.
#[derive(Debug, Clone, Copy, Default)]
struct Unit {
    g: [u8; 4],
    len: u8,
}

impl Unit {
    fn push(&mut self, g: usize) {
        self.g[self.len as usize] = g as u8;
        self.len += 1;
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.g[..self.len as usize].iter().map(|&g| g as usize)
    }
    fn len(&self) -> usize {
        self.len as usize
    }
    fn first(&self) -> usize {
        self.g[0] as usize
    }
    fn contains(&self, g: usize) -> bool {
        self.iter().any(|x| x == g)
    }
    fn pieces(&self) -> Vec<PieceId> {
        self.iter().map(PieceId::from_index).collect()
    }
    /// Rule 5.2.3 / 5.3: larger first, then the lowest-numbered guardian first.
    fn order_key(&self) -> (std::cmp::Reverse<usize>, usize) {
        (std::cmp::Reverse(self.len()), self.first())
    }
}

/// What resolution needs besides the position.
struct Ctx<'a> {
    rules: &'a RuleSet,
    seat: Seat,
    dir: Direction,
    events: &'a mut Vec<Event>,
}

impl Position {
    /// Plays `plan` for the seat to move (rules §4–§8): validates it (rule 4.5), then
    /// resolves it. Returns the new position and the events in the order they happened.
    /// The checked entry point: `play` = [`Position::validate`] +
    /// [`Position::play_unchecked`].
    ///
    /// Errors: a [`PlanError`] with its stable code; `self` is unchanged (it is
    /// borrowed, and nothing is resolved unless the whole plan is valid).
    pub fn play(&self, rules: &RuleSet, plan: &Plan) -> Result<(Position, Vec<Event>), PlanError> {
        let vp = self.validate(rules, plan)?;
        let mut next = *self;
        let mut events = Vec::new();
        next.play_unchecked(rules, &vp, &mut events);
        Ok((next, events))
    }

    /// Resolves an already validated plan in place (rules §3, §5–§8), appending the
    /// events to `events` (so a hot loop can reuse one buffer and skip re-validating).
    ///
    /// Contract, which the types cannot carry: `vp` was returned by
    /// [`Position::validate`] on a position equal to `self` (before this call), with a
    /// rule set whose `royal_max_steps` is at least `vp`'s royal steps. Then the result
    /// is exactly that of [`Position::play`]. A [`ValidPlan`] of another position
    /// breaks rule 4.5 unseen (it may spend rolls or exit credits the seat does not
    /// hold, or move another seat's turn): the position reached is unspecified and the
    /// call may panic (debug builds check the seat, the rolls and the credits). Never
    /// memory-unsafe.
    pub fn play_unchecked(&mut self, rules: &RuleSet, vp: &ValidPlan, events: &mut Vec<Event>) {
        debug_assert_eq!(
            self.to_move,
            Some(vp.seat()),
            "play_unchecked: the plan was validated for another seat to move"
        );
        let Some(seat) = self.to_move else { return };
        let mut ctx = Ctx {
            rules,
            seat,
            dir: vp.direction(),
            events,
        };
        {
            let st = self.seat_mut(seat);
            for &v in vp.used().as_slice() {
                let held = st.rolls.remove(v);
                debug_assert!(held, "play_unchecked: roll {v} is not in the store");
            }
            debug_assert!(
                st.exit_credits >= vp.exit_count(),
                "play_unchecked: not enough exit credits"
            );
            st.exit_credits = st.exit_credits.saturating_sub(vp.exit_count());
        }
        // Rule 5.1: royal first, guardian phase, or royal last.
        if let (Some(r), true) = (vp.royal(), vp.royal_first()) {
            self.move_royal(&mut ctx, r);
        }
        self.guardian_phase(&mut ctx, vp);
        if let (Some(r), false) = (vp.royal(), vp.royal_first()) {
            self.move_royal(&mut ctx, r);
        }
        self.complete(&mut ctx);
        self.advance_turn(seat);
    }

    /// Rule 5.2: exits, then moving groups, larger first, lowest number first.
    fn guardian_phase(&mut self, ctx: &mut Ctx, vp: &ValidPlan) {
        let seat = ctx.seat;
        let entry = Location::Ring(seat.entry());
        for g in PieceId::GUARDIANS {
            if !vp.exits(g) {
                continue;
            }
            self.seat_mut(seat).pieces[g.index()] = entry;
            ctx.events.push(Event::Exit {
                seat,
                piece: g,
                to: entry,
            });
            // Rule 5.2.1 [H]: arriving from the Yard counts as reaching the entry tile.
            self.reach(ctx, g, entry);
            let strength = self.seat(seat).guardians_on(entry);
            self.capture_at(ctx, seat.entry(), strength);
        }
        let mut groups = [Unit::default(); 4];
        let mut locs = [Location::Yard; 4];
        let mut n = 0;
        let mut rem = vp.all_steps();
        for (g, _) in rem.iter().enumerate().filter(|&(_, &steps)| steps > 0) {
            let loc = self.seat(seat).pieces[g];
            match locs[..n].iter().position(|&l| l == loc) {
                Some(i) => groups[i].push(g),
                None => {
                    locs[n] = loc;
                    groups[n].push(g);
                    n += 1;
                }
            }
        }
        let groups = &mut groups[..n];
        groups.sort_by_key(Unit::order_key);
        for unit in groups.iter() {
            self.move_unit(ctx, *unit, &mut rem);
        }
    }

    /// Rules 5.3, 5.4, 6, 7: moves one unit of guardians step by step; `rem` holds
    /// each guardian's steps left.
    fn move_unit(&mut self, ctx: &mut Ctx, mut unit: Unit, rem: &mut [u16; 4]) {
        let seat = ctx.seat;
        let mut from = self.seat(seat).pieces[unit.first()];
        // One allocation for the whole path (it grows by one tile per step).
        let longest = unit.iter().map(|g| rem[g] as usize).max().unwrap_or(0);
        let mut path: Vec<Location> = Vec::with_capacity(longest);
        loop {
            // A member whose sum is used up stops; the others go on (rule 5.3).
            let mut still = Unit::default();
            for g in unit.iter().filter(|&g| rem[g] > 0) {
                still.push(g);
            }
            if still.len() != unit.len() {
                flush(ctx, seat, &unit, &mut from, &mut path);
                unit = still;
            }
            if unit.len() == 0 {
                return;
            }
            let st = self.seat(seat);
            let cur = st.pieces[unit.first()];
            let mut next = [None; 4];
            for (i, g) in unit.iter().enumerate() {
                next[i] = step(seat, cur, ctx.dir, st.glowing & (1 << g) != 0, false);
            }
            let Some(t) = next[0] else {
                // At Home: leftover steps are lost (rule 3.3).
                unit.iter().for_each(|g| rem[g] = 0);
                continue;
            };
            if next[..unit.len()].iter().any(|&x| x != next[0]) {
                // Rule 5.3: next tiles differ, the group splits; sub-groups move one
                // after another, larger first, then lowest number first.
                flush(ctx, seat, &unit, &mut from, &mut path);
                let mut subs = [Unit::default(); 4];
                let mut tiles = [None; 4];
                let mut k = 0;
                for (i, g) in unit.iter().enumerate() {
                    match tiles[..k].iter().position(|&x| x == next[i]) {
                        Some(j) => subs[j].push(g),
                        None => {
                            tiles[k] = next[i];
                            subs[k].push(g);
                            k += 1;
                        }
                    }
                }
                let subs = &mut subs[..k];
                subs.sort_by_key(Unit::order_key);
                for sub in subs.iter() {
                    self.move_unit(ctx, *sub, rem);
                }
                return;
            }
            // Rule 5.4: strength = guardians moving together + own guardians standing there.
            let standing = st.pieces[..4]
                .iter()
                .enumerate()
                .filter(|&(g, &l)| l == t && !unit.contains(g))
                .count();
            let strength = unit.len() + standing;
            if let Some(by) = self.guardian_blocker(seat, t, strength) {
                flush(ctx, seat, &unit, &mut from, &mut path);
                let lost: u32 = unit.iter().map(|g| rem[g] as u32).sum();
                let penalty = lost as i64 * ctx.rules.blockade_penalty_per_step.get(self.mode);
                self.seat_mut(seat).combat -= penalty;
                ctx.events.push(Event::Blocked {
                    seat,
                    pieces: unit.pieces(),
                    at: cur,
                    tile: t,
                    by,
                    lost_steps: lost,
                    penalty,
                });
                unit.iter().for_each(|g| rem[g] = 0);
                return;
            }
            for g in unit.iter() {
                self.seat_mut(seat).pieces[g] = t;
                rem[g] -= 1;
            }
            path.push(t);
            let mark = ctx.events.len();
            for g in unit.iter() {
                self.reach(ctx, PieceId::from_index(g), t);
            }
            if let Location::Ring(r) = t {
                self.capture_at(ctx, r, strength);
            }
            if t == Location::Home {
                unit.iter().for_each(|g| rem[g] = 0);
            }
            if ctx.events.len() > mark {
                // Something happened on `t`: the move up to `t` comes before it.
                let ev = Event::Move {
                    seat,
                    pieces: unit.pieces(),
                    from,
                    path: std::mem::take(&mut path),
                };
                ctx.events.insert(mark, ev);
                from = t;
            }
        }
    }

    /// Rule 6.2, 6.4: the seat whose group blocks a guardian unit of `strength`
    /// entering `t`, if any.
    fn guardian_blocker(&self, seat: Seat, t: Location, strength: usize) -> Option<Seat> {
        let Location::Ring(r) = t else { return None };
        if is_fort(r) || r == seat.entry() {
            return None;
        }
        Seat::ALL.into_iter().filter(|&x| x != seat).find(|&x| {
            let gx = self.seat(x).guardians_on(t);
            gx >= 2 && !(r != x.entry() && can_capture_group(strength, gx))
        })
    }

    /// Rules 7.1–7.6: a guardian unit of `strength` of the seat to move reached ring
    /// tile `r`; capture what it can.
    fn capture_at(&mut self, ctx: &mut Ctx, r: u8, strength: usize) {
        if is_fort(r) {
            return; // rule 7.6
        }
        let seat = ctx.seat;
        let own_entry = r == seat.entry();
        let tile = Location::Ring(r);
        for x in Seat::ALL {
            if x == seat || r == x.entry() {
                continue; // rule 7.6: a piece on its own entry tile cannot be captured
            }
            let st = self.seat(x);
            let gx = st.guardians_on(tile);
            let royal_here = st.location(PieceId::R) == tile;
            if gx > 0
                && (own_entry || (strength >= 2 && (gx == 1 || can_capture_group(strength, gx))))
            {
                for g in PieceId::GUARDIANS {
                    if self.seat(x).location(g) == tile {
                        self.capture_piece(ctx, x, g, false);
                    }
                }
            }
            if royal_here && (own_entry || strength >= 2) {
                self.capture_royal(ctx, x);
            }
        }
    }

    /// Rule 8.6: combat points the seat to move earns for capturing a guardian or a
    /// royal, by where its own royal stands now and whether it glows.
    fn combat_points(&self, ctx: &Ctx, royal_captured: bool) -> i64 {
        let st = self.seat(ctx.seat);
        let table = ctx.rules.combat.get(self.mode);
        let glow = st.glows(PieceId::R);
        let row = match st.location(PieceId::R) {
            Location::Ring(r) if r == ctx.seat.entry() => table.safe,
            Location::Ring(r) if is_fort(r) => {
                if glow {
                    table.fort_glowing
                } else {
                    table.fort
                }
            }
            Location::Ring(_) => {
                if glow {
                    table.other_glowing
                } else {
                    table.other
                }
            }
            _ => table.safe,
        };
        row.get(royal_captured)
    }

    /// Rule 7.7: sends piece `p` of seat `x` to its Yard and credits the capturer.
    fn capture_piece(&mut self, ctx: &mut Ctx, x: Seat, p: PieceId, cascade: bool) {
        let points = self.combat_points(ctx, p.is_royal());
        let victim = self.seat_mut(x);
        let tile = victim.pieces[p.index()];
        victim.pieces[p.index()] = Location::Yard;
        victim.glowing &= !(1 << p.index());
        victim.progress[p.index()] = 0;
        self.seat_mut(ctx.seat).combat += points;
        ctx.events.push(Event::Capture {
            seat: ctx.seat,
            tile,
            captured_seat: x,
            captured: p,
            points,
            cascade,
        });
    }

    /// Rule 7.8: the royal of `x` is captured, and with it every guardian of `x` on
    /// the ring; `x` loses its rolls and exit credits and receives
    /// `royal_capture_exit_credits`.
    fn capture_royal(&mut self, ctx: &mut Ctx, x: Seat) {
        self.capture_piece(ctx, x, PieceId::R, false);
        let mut sent = Vec::new();
        for g in PieceId::GUARDIANS {
            if let Location::Ring(_) = self.seat(x).location(g) {
                self.capture_piece(ctx, x, g, true);
                sent.push(g);
            }
        }
        let credits = ctx.rules.royal_capture_exit_credits as u32;
        let victim = self.seat_mut(x);
        let rolls_lost = victim.rolls.as_slice().to_vec();
        victim.rolls.clear();
        victim.exit_credits = credits;
        ctx.events.push(Event::RoyalCaptured {
            seat: x,
            by: ctx.seat,
            guardians: sent,
            rolls_lost,
            exit_credits: credits,
        });
    }

    /// Rules 8.2–8.5: piece `p` of the seat to move reached `loc`; score its
    /// checkpoint or midpoint.
    fn reach(&mut self, ctx: &mut Ctx, p: PieceId, loc: Location) {
        let seat = ctx.seat;
        let Some(cp) = Checkpoint::at(seat, loc) else {
            return;
        };
        let table = ctx.rules.progress.get(self.mode);
        let royal = p.is_royal();
        let st = self.seat_mut(seat);
        let i = p.index();
        match cp {
            Checkpoint::Midpoint => {
                if st.glowing & (1 << i) == 0 {
                    let points = table.midpoint.get(royal);
                    st.progress[i] += points;
                    st.glowing |= 1 << i;
                    st.scored[i] = Record::default();
                    ctx.events.push(Event::Midpoint {
                        seat,
                        piece: p,
                        points,
                    });
                }
            }
            Checkpoint::Home => {
                let points = if st.scored[i].insert(cp) {
                    table.home.get(royal)
                } else {
                    0
                };
                st.progress[i] += points;
                ctx.events.push(Event::Home {
                    seat,
                    piece: p,
                    points,
                });
            }
            _ => {
                if st.scored[i].insert(cp) {
                    let points = match cp {
                        Checkpoint::Entry => table.own_entry,
                        Checkpoint::Fort(_) => table.fort,
                        _ => table.other_entry,
                    }
                    .get(royal);
                    st.progress[i] += points;
                    ctx.events.push(Event::Checkpoint {
                        seat,
                        piece: p,
                        checkpoint: cp,
                        points,
                    });
                }
            }
        }
    }

    /// Rules 4.3, 6.3–6.5: the royal moves `steps` steps (never capturing); from the
    /// Yard its first step lands on the entry tile.
    fn move_royal(&mut self, ctx: &mut Ctx, steps: u8) {
        let seat = ctx.seat;
        let r = PieceId::R;
        let unit = {
            let mut u = Unit::default();
            u.push(r.index());
            u
        };
        let mut from = self.seat(seat).location(r);
        let mut path = Vec::new();
        let mut left = steps as u32;
        while left > 0 {
            let st = self.seat(seat);
            let cur = st.location(r);
            let Some(t) = step(seat, cur, ctx.dir, st.glows(r), true) else {
                break;
            };
            let own_block = match t {
                Location::Ring(x) => !is_fort(x),
                Location::HomePath(_) => true,
                _ => false,
            } && st.guardians_on(t) >= 2;
            let opp = match t {
                Location::Ring(x) if !own_block && !is_fort(x) && x != seat.entry() => Seat::ALL
                    .into_iter()
                    .find(|&o| o != seat && self.seat(o).guardians_on(t) >= 2),
                _ => None,
            };
            if own_block || opp.is_some() {
                flush(ctx, seat, &unit, &mut from, &mut path);
                let penalty = if opp.is_some() {
                    left as i64 * ctx.rules.blockade_penalty_per_step.get(self.mode)
                } else {
                    0
                };
                self.seat_mut(seat).combat -= penalty;
                ctx.events.push(Event::Blocked {
                    seat,
                    pieces: vec![r],
                    at: cur,
                    tile: t,
                    by: opp.unwrap_or(seat),
                    lost_steps: left,
                    penalty,
                });
                return;
            }
            self.seat_mut(seat).pieces[r.index()] = t;
            left -= 1;
            path.push(t);
            let mark = ctx.events.len();
            self.reach(ctx, r, t);
            if t == Location::Home {
                left = 0;
            }
            if ctx.events.len() > mark {
                let ev = Event::Move {
                    seat,
                    pieces: vec![r],
                    from,
                    path: std::mem::take(&mut path),
                };
                ctx.events.insert(mark, ev);
                from = t;
            }
        }
        flush(ctx, seat, &unit, &mut from, &mut path);
    }

    /// Rule 8.8: the fifth piece home finishes the seat, with the journey bonus.
    fn complete(&mut self, ctx: &mut Ctx) {
        let seat = ctx.seat;
        let place = self.finished_count() as u8 + 1;
        let journey = self.mode == Mode::Journey;
        let st = self.seat_mut(seat);
        if st.finished.is_some() || !st.all_home() {
            return;
        }
        let bonus = if journey {
            ctx.rules.completion_bonus[(place - 1) as usize]
        } else {
            0
        };
        st.finished = Some(place);
        st.bonus += bonus;
        ctx.events.push(Event::Finished { seat, place, bonus });
    }

    /// Rule 4.7: the turn goes to the next seat that has not finished.
    pub(crate) fn advance_turn(&mut self, seat: Seat) {
        self.to_move = (1..=4)
            .map(|k| Seat::from_index(seat.index() + k))
            .find(|s| self.seat(*s).finished.is_none());
    }
}

/// Rule 7.2: a unit of `strength` captures a group of `size` ≥ 2 guardians when it
/// is larger, or when both are four.
fn can_capture_group(strength: usize, size: usize) -> bool {
    strength > size || strength == 4
}

/// Emits the pending [`Event::Move`] of `unit` (if it moved) and starts a new stretch.
fn flush(ctx: &mut Ctx, seat: Seat, unit: &Unit, from: &mut Location, path: &mut Vec<Location>) {
    if let Some(&last) = path.last() {
        ctx.events.push(Event::Move {
            seat,
            pieces: unit.pieces(),
            from: *from,
            path: std::mem::take(path),
        });
        *from = last;
    }
}
