/**
 * Rule 1.1: the four seats, in turn order (green moves first).
 */
export type Seat = 'green' | 'red' | 'blue' | 'yellow';
/**
 * A match seed: 32 bytes as 64 hex digits. Dice: ChaCha20 (RFC 8439 block function, 20 rounds, zero nonce) seeded with these bytes; each die takes the next little-endian u32 x, rejects x >= 4294967292 and yields 1 + x mod 6.
 */
export type Seed = string;
/**
 * One thing that happened during resolution (rules §3–§8), tagged by `"type"`.
 * Events come in the order they happened; a [`Event::Move`] ends at every tile where
 * something else happened, so the next events belong to its last tile.
 */
export type Event = {
    /**
     * The guardian.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Moving seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Its entry tile.
     */
    to: string;
    type: 'exit';
} | {
    /**
     * Where they started this stretch.
     */
    from: string;
    /**
     * Tiles entered, in step order.
     */
    path: Location[];
    /**
     * The pieces moving together (one royal, or one or more guardians).
     */
    pieces: PieceId[];
    /**
     * Moving seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'move';
} | {
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    at: string;
    /**
     * The seat whose group blocked (the moving seat itself for rule 6.3).
     */
    by: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Steps lost, summed over the blocked pieces.
     */
    lost_steps: number;
    /**
     * Combat points lost (0 when blocked by the own seat).
     */
    penalty: number;
    /**
     * The blocked pieces.
     */
    pieces: PieceId[];
    /**
     * Moving seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    tile: string;
    type: 'blocked';
} | {
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    captured: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Owner of the captured piece.
     */
    captured_seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * True when the piece was captured because its royal was (rule 7.8).
     */
    cascade: boolean;
    /**
     * Combat points the capturing seat earned (rule 8.6).
     */
    points: number;
    /**
     * Capturing seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    tile: string;
    type: 'capture';
} | {
    /**
     * The capturing seat.
     */
    by: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Exit credits the seat now holds.
     */
    exit_credits: number;
    /**
     * Guardians sent to the Yard with it.
     */
    guardians: PieceId[];
    /**
     * Rolls the seat lost.
     */
    rolls_lost: number[];
    /**
     * The seat whose royal was captured.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'royal_captured';
} | {
    /**
     * The checkpoint.
     */
    checkpoint: string;
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Progress points earned (rule 8.5).
     */
    points: number;
    /**
     * Moving seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'checkpoint';
} | {
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Progress points earned (rule 8.5).
     */
    points: number;
    /**
     * Moving seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'midpoint';
} | {
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Progress points earned (0 if `home` was already recorded).
     */
    points: number;
    /**
     * Moving seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'home';
} | {
    /**
     * Completion bonus earned (journey only).
     */
    bonus: number;
    /**
     * Its finishing place 1..=4.
     */
    place: number;
    /**
     * The seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'finished';
};
/**
 * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
 */
export type Location = string;
/**
 * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
 */
export type PieceId = 'G1' | 'G2' | 'G3' | 'G4' | 'R';
/**
 * What re-playing a match needs: rule set, mode, seed (revealed once the match has
 * ended), its commitment, every turn in order and the end. Extra fields (match id,
 * players, times) are ignored when reading one.
 */
export interface Replay {
    /**
     * Scheme `contributed`: every seat's recorded contribution in seat order, once
     * sealed (before the first roll); absent for `server_seed`.
     */
    contributions?: Contribution[] | null;
    /**
     * SHA-256 of the seed, published at match start (hex).
     */
    dice_commitment: string;
    /**
     * Which inputs key the dice: `server_seed` (the seed alone; the default, so a
     * replay from before issue 31 reads as that scheme) or `contributed` (the seed
     * and `contributions`, `proto/README.md` §10).
     */
    dice_scheme?: 'server_seed' | 'contributed';
    /**
     * The end, once the match is over.
     */
    end?: MatchEnd | null;
    /**
     * Seats whose player left the match (server rule: they rank last); empty when
     * nobody left.
     */
    left?: Seat[];
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
    rules: RuleSet;
    /**
     * The seed (hex); null while the match is running.
     */
    seed?: Seed | null;
    /**
     * Every resolved turn, in order.
     */
    turns: TurnRecord[];
}
/**
 * One seat's recorded contribution to the dice (scheme [`DiceScheme::Contributed`]).
 */
export interface Contribution {
    /**
     * True when the seat did not contribute in the window (a bot, an empty seat, or
     * a player who sent nothing in time) and got the default (no bytes).
     */
    defaulted: boolean;
    /**
     * The entropy used: the player's bytes, or `""` (no bytes) for the default.
     */
    entropy: string;
    /**
     * The seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
}
/**
 * The end of a match.
 */
export interface MatchEnd {
    /**
     * Why it ended.
     */
    reason: 'all_finished' | 'clock' | 'abandoned';
    /**
     * Final standings (rule 9.2).
     */
    standings: Standing[];
}
/**
 * Rule 9.2: one seat's final (or current) result.
 */
export interface Standing {
    /**
     * Completion bonus (rule 8.8).
     */
    bonus: number;
    /**
     * Combat points (rule 8.6).
     */
    combat: number;
    /**
     * Finishing place (rule 8.8), if the seat finished.
     */
    finished?: number | null;
    /**
     * Server rule (not in RULES.md): the seat's player left the match
     * ([`Match::leave`]); a seat that left ranks below every seat that stayed.
     */
    left?: boolean;
    /**
     * Place by total, 1 = best; equal totals share a place (1, 1, 3, 4).
     */
    place: number;
    /**
     * Sum of progress points (rule 8.5).
     */
    progress: number;
    /**
     * The seat.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * progress + combat + bonus.
     */
    total: number;
}
/**
 * The rule set the match was played with.
 */
export interface RuleSet {
    blockade_penalty_per_step: PerMode;
    combat: PerMode3;
    /**
     * Rule 8.8: journey completion bonus by finishing place 1..=4 (400, 300, 200, 100).
     *
     * @minItems 4
     * @maxItems 4
     */
    completion_bonus: [number, number, number, number];
    /**
     * Rule 4.1: dice rolled at each turn start (default 3).
     */
    dice_per_turn: number;
    /**
     * Rule 4.1: most exit credits a seat holds (default 4).
     */
    exit_credit_cap: number;
    /**
     * Rule 9.1: the match clock, seconds (default 1800).
     */
    match_seconds: number;
    progress: PerMode2;
    /**
     * Rule 4.1: most rolls a store holds (default 9; at most [`MAX_ROLL_STORE`]).
     */
    roll_store_cap: number;
    /**
     * Rule 7.8: exit credits a seat receives after its royal is captured (default 2).
     */
    royal_capture_exit_credits: number;
    /**
     * Rule 4.3: most steps of a royal move (default 8).
     */
    royal_max_steps: number;
    /**
     * Rule 4.2: exit credits each seat starts with (default 2).
     */
    start_exit_credits: number;
    /**
     * Rule 4.6: time for one turn, seconds (default 30).
     */
    turn_seconds: number;
}
/**
 * Rule 6.5: combat points lost per lost step per blocked piece (journey 5, clash 10).
 */
export interface PerMode {
    /**
     * Value in clash mode.
     */
    clash: number;
    /**
     * Value in journey mode.
     */
    journey: number;
}
/**
 * Rule 8.6: combat points per captured piece.
 */
export interface PerMode3 {
    clash: CombatTable;
    journey: CombatTable1;
}
/**
 * Value in clash mode.
 */
export interface CombatTable {
    fort: PerPiece;
    fort_glowing: PerPiece1;
    other: PerPiece2;
    other_glowing: PerPiece3;
    safe: PerPiece4;
}
/**
 * Capturer's royal on a fort, not glowing.
 */
export interface PerPiece {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal on a fort, glowing.
 */
export interface PerPiece1 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal on any other ring tile, not glowing.
 */
export interface PerPiece2 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal on any other ring tile, glowing.
 */
export interface PerPiece3 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal in the Yard, on its own entry, in its home path or Home.
 */
export interface PerPiece4 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Value in journey mode.
 */
export interface CombatTable1 {
    fort: PerPiece;
    fort_glowing: PerPiece1;
    other: PerPiece2;
    other_glowing: PerPiece3;
    safe: PerPiece4;
}
/**
 * Rule 8.5: progress points per checkpoint.
 */
export interface PerMode2 {
    clash: ProgressTable;
    journey: ProgressTable1;
}
/**
 * Value in clash mode.
 */
export interface ProgressTable {
    fort: PerPiece5;
    home: PerPiece6;
    midpoint: PerPiece7;
    other_entry: PerPiece8;
    own_entry: PerPiece9;
}
/**
 * Any fort (`fort:<ring index>`).
 */
export interface PerPiece5 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Home (`home`).
 */
export interface PerPiece6 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * The midpoint (rule 8.4).
 */
export interface PerPiece7 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * The two other seats' entry tiles that are not the midpoint (`entry:<seat>`).
 */
export interface PerPiece8 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * The piece's own entry tile (`entry`).
 */
export interface PerPiece9 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Value in journey mode.
 */
export interface ProgressTable1 {
    fort: PerPiece5;
    home: PerPiece6;
    midpoint: PerPiece7;
    other_entry: PerPiece8;
    own_entry: PerPiece9;
}
/**
 * One resolved turn, as kept in the log and the replay.
 */
export interface TurnRecord {
    /**
     * Dice rolled at the start of the turn.
     */
    dice: number[];
    /**
     * Events of the resolution, in order.
     */
    events: Event[];
    /**
     * How the turn ended.
     */
    kind: 'plan' | 'pass' | 'timeout';
    plan: Plan;
    /**
     * The seat that moved.
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Turn number (1-based).
     */
    turn_number: number;
}
/**
 * The plan resolved (the empty plan for a pass or a timeout).
 */
export interface Plan {
    /**
     * Rule 4.3: direction of every ring move this turn (default forward).
     */
    direction?: 'forward' | 'backward';
    /**
     * Rule 4.3: guardians (`"G1"`..`"G4"`) to bring out of the Yard, one exit credit each.
     */
    exits?: string[];
    /**
     * Rule 4.3: roll values from the store per guardian; the guardian moves by their sum (steps).
     */
    moves?: {
        [k: string]: number[];
    };
    /**
     * Rule 4.3: royal steps, 1..=`royal_max_steps` (default 8); absent = the royal stays.
     */
    royal?: number | null;
    /**
     * Rule 5.1: the royal moves before the guardians when true (default false).
     */
    royal_first?: boolean;
}
