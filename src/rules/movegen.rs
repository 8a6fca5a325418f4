//! Legal turn generation.
//!
//! Whether a side can capture is decided set-wise, eight directions at a time, with shifts
//! of the whole board. Capture chains are then walked stone by stone, depth first, on plain
//! `u64` sets with precomputed neighbour and ray tables, so the hot path neither allocates
//! (beyond the caller's reusable list) nor builds routes. Routes, which the notation needs,
//! come from the same walk with a recording sink. Perft's last ply only counts turns, in no
//! particular order, with a walk of its own that queues landing points instead of recursing.

use crate::rules::ChainRule;
use crate::rules::bitboard::Bitboard;
use crate::rules::geometry::{
    ADJACENT, DIRECTION_BETWEEN, Direction, NEIGHBORS, NONE, NUM_SQUARES, RAYS, Square, TABLE_ROWS,
};
use crate::rules::position::Position;
use crate::rules::turn::{CaptureKind, Route, Step, Turn};

/// The capturing steps of the board, set-wise: for each direction, the points from which a
/// stone stepping that way would capture, whatever stands on them now.
struct CaptureSteps {
    /// `approach[d]`: points whose neighbour in direction `d` is empty and the point after
    /// it an enemy.
    approach: [Bitboard; 8],
    /// `withdrawal[d]`: points whose neighbour in direction `d` is empty and whose
    /// neighbour the other way is an enemy.
    withdrawal: [Bitboard; 8],
}

impl CaptureSteps {
    /// Eight directions at a time with shifts of the whole board: the shifts of a line's two
    /// directions serve both, so each line costs six.
    #[inline(always)]
    fn new(them: Bitboard, empty: Bitboard) -> CaptureSteps {
        let mut steps = CaptureSteps {
            approach: [Bitboard::EMPTY; 8],
            withdrawal: [Bitboard::EMPTY; 8],
        };
        // Written out line by line: each shift then has a constant direction.
        steps.add_line(Direction::North, them, empty);
        steps.add_line(Direction::NorthEast, them, empty);
        steps.add_line(Direction::East, them, empty);
        steps.add_line(Direction::SouthEast, them, empty);
        steps
    }

    /// The steps along the line of direction `d`, both ways.
    #[inline(always)]
    fn add_line(&mut self, d: Direction, them: Bitboard, empty: Bitboard) {
        let back = d.opposite();
        // Points whose neighbour in `d` (`them_ahead`, `empty_ahead`) or in `back`
        // (`them_behind`, `empty_behind`) is an enemy or empty.
        let them_ahead = them.shift(back);
        let them_behind = them.shift(d);
        let empty_ahead = empty.shift(back);
        let empty_behind = empty.shift(d);
        self.approach[d.index()] = (empty & them_ahead).shift(back);
        self.withdrawal[d.index()] = them_behind & empty_ahead;
        self.approach[back.index()] = (empty & them_behind).shift(d);
        self.withdrawal[back.index()] = them_ahead & empty_behind;
    }

    /// Every point with at least one capturing step.
    #[inline]
    fn sources(&self) -> Bitboard {
        (0..8).fold(Bitboard::EMPTY, |acc, d| {
            acc | self.approach[d] | self.withdrawal[d]
        })
    }
}

/// The stones of `us` that have a capturing first step, given the enemy stones `them` and
/// the `empty` points.
#[inline]
pub fn capturing_stones(us: Bitboard, them: Bitboard, empty: Bitboard) -> Bitboard {
    CaptureSteps::new(them, empty).sources() & us
}

/// True when the side to move has a capture, so that it may not play a paika.
#[inline]
pub fn has_capture(position: &Position) -> bool {
    capturing_stones(position.us(), position.them(), position.empty()).any()
}

/// True when the side not to move would have a capture if it were its turn.
#[inline]
pub fn opponent_has_capture(position: &Position) -> bool {
    capturing_stones(position.them(), position.us(), position.empty()).any()
}

/// True when the side to move has any legal turn. Every turn starts with a step to an
/// empty neighbouring point, and any such step is a capture or, when no capture exists
/// anywhere, a legal paika; so this only looks for a stone with an empty neighbour.
#[inline]
pub fn has_legal_turn(position: &Position) -> bool {
    let (us, empty) = (position.us(), position.empty());
    Direction::ALL.iter().any(|&d| (us.shift(d) & empty).any())
}

/// The number of paika steps `stones` could make into `empty` (one per stone and line
/// direction with an empty neighbour): the paikas of a position without captures.
pub fn paika_steps(stones: Bitboard, empty: Bitboard) -> u32 {
    Direction::ALL
        .iter()
        .map(|&d| (stones.shift(d) & empty).count())
        .sum()
}

/// Fills `out` (cleared first) with every legal turn, one entry per distinct result.
pub fn generate_turns(position: &Position, chain_rule: ChainRule, out: &mut Vec<Turn>) {
    out.clear();
    let (us, them) = (position.us(), position.them());
    let capturers = capturing_stones(us, them, position.empty());
    if capturers.any() {
        let blocked = position.us_and_off_board();
        for from in capturers {
            let mut sink = TurnCollector::new(out, from, them);
            walk_chains(from, blocked, them, u64::MAX, chain_rule, &mut sink);
        }
    } else {
        push_paikas(us, position.empty(), out);
    }
}

/// Appends every paika of `stones` into `empty`: one step of one stone along a line.
pub(crate) fn push_paikas(stones: Bitboard, empty: Bitboard, out: &mut Vec<Turn>) {
    for d in Direction::ALL {
        for to in stones.shift(d) & empty {
            out.push(Turn::new(step_origin(to, d), to, Bitboard::EMPTY));
        }
    }
}

/// The point a step in direction `d` that landed on `to` came from. `to` must be such a
/// landing point (a member of some set shifted by `d`), so the point exists.
#[inline]
pub(crate) fn step_origin(to: Square, d: Direction) -> Square {
    Square::from_index_unchecked(NEIGHBORS[to.index()][d.opposite().index()])
}

/// The number of legal turns, counted rather than listed where that is safe: perft's last
/// ply. Paikas are counted set-wise. So are the single-step captures of every stone that
/// cannot go on capturing: a continuation from a landing point needs a capture from there
/// on the board as it is now (the first step only removes enemies and leaves behind a point
/// the stone may not revisit; the points it frees are never next to the landing point in
/// a direction it may take). Only stones with such a landing point are walked in full.
pub fn count_turns(
    position: &Position,
    chain_rule: ChainRule,
    scratch: &mut TurnCounting,
) -> usize {
    let (us, them, empty) = (position.us(), position.them(), position.empty());
    let steps = CaptureSteps::new(them, empty);
    let sources = steps.sources();
    if (sources & us).is_empty() {
        return Direction::ALL
            .iter()
            .map(|&d| (us.shift(d) & empty).count() as usize)
            .sum();
    }
    let continuation_points = sources & empty;
    // A first step to a point where no chain can go on is a turn of its own, counted here;
    // the stones with a step to such a point are walked from those points only.
    let mut chained = Bitboard::EMPTY;
    let mut count = 0;
    for d in Direction::ALL {
        let i = d.index();
        let going_on = continuation_points.shift(d.opposite());
        let (approach, withdrawal) = (steps.approach[i] & us, steps.withdrawal[i] & us);
        count += (approach & !going_on).count() as usize;
        count += (withdrawal & !going_on).count() as usize;
        chained |= (approach | withdrawal) & going_on;
    }
    let first_landings = continuation_points.bits();
    let blocked = position.us_and_off_board();
    for from in chained {
        count += match chain_rule {
            ChainRule::Optional => scratch.count_stone::<true>(from, blocked, them, first_landings),
            ChainRule::Mandatory => {
                scratch.count_stone::<false>(from, blocked, them, first_landings)
            }
        };
    }
    count
}

/// Room for the counting walk's pending steps. The stone's first steps are at most 16
/// (eight directions, each by approach and by withdrawal), a later step has at most 12 next
/// steps (six directions). Every step captures one or more of at most 44 enemy stones, so a
/// step with next steps is at most the 43rd of its turn. The stack holds the next steps of
/// the step being taken up and the waiting siblings of each step on its path, at most 15
/// for the first and 11 for each later one: 12 + 15 + 11 * 42 = 489 < 512.
const PENDING_CAPACITY: usize = 512;
// Popping masks the index with `PENDING_CAPACITY - 1`.
const _: () = assert!(PENDING_CAPACITY.is_power_of_two());

/// Reusable memory for [`count_turns`], so that counting never allocates once warmed up.
pub struct TurnCounting {
    /// The turns of two or more steps found so far for the stone being walked.
    longer: TurnKeys,
    /// Landing points still to be walked on from, a stack.
    pending: Box<[PendingStep; PENDING_CAPACITY]>,
}

impl Default for TurnCounting {
    fn default() -> TurnCounting {
        TurnCounting {
            longer: TurnKeys::default(),
            pending: Box::new([PendingStep::default(); PENDING_CAPACITY]),
        }
    }
}

/// A stone that has just landed on `at` in a chain that is not finished: the walk goes on
/// from it later.
#[derive(Clone, Copy, Default)]
struct PendingStep {
    at: u8,
    /// The enemy stones left.
    them: u64,
    /// Points the stone may not land on: the side's other stones and the points visited.
    blocked: u64,
    /// Where its capturing steps by approach land.
    approach: u64,
    /// Where its capturing steps by withdrawal land.
    withdrawal: u64,
}

/// The counting walk of one stone, its state in locals so that the hot loop keeps it in
/// registers.
struct CountingWalk<'a> {
    pending: &'a mut [PendingStep; PENDING_CAPACITY],
    pending_len: usize,
    longer: &'a mut TurnKeys,
    /// The slots of `longer` in use, see [`TurnKeys`].
    used_slots: u64,
}

impl TurnCounting {
    /// The turns of the stone on `from` whose first step lands on one of `first_landings`;
    /// `blocked` holds the side's stones and the points off the board.
    ///
    /// Order does not matter when counting, so the walk keeps a stack of landing points to
    /// go on from instead of recursing: each is taken up once, with no state to resume.
    /// `OPTIONAL`: the chain rule is [`ChainRule::Optional`] (a compile-time constant here,
    /// because it is tested at every step).
    fn count_stone<const OPTIONAL: bool>(
        &mut self,
        from: Square,
        blocked: Bitboard,
        them: Bitboard,
        first_landings: u64,
    ) -> usize {
        self.longer.clear();
        let mut walk = CountingWalk {
            pending: &mut self.pending,
            pending_len: 0,
            longer: &mut self.longer,
            used_slots: 0,
        };
        let at = from.index();
        // The stone's own point counts as visited: it may not come back to it.
        let blocked = blocked.bits();
        let landings = ADJACENT[at] & !(blocked | them.bits()) & first_landings;
        let (approach, withdrawal) = capture_landings(at, them.bits(), landings);
        let root = PendingStep {
            at: at as u8,
            them: them.bits(),
            blocked,
            approach,
            withdrawal,
        };
        let single_steps = walk.expand::<true, OPTIONAL>(root);
        while walk.pending_len > 0 {
            walk.pending_len -= 1;
            // The mask, a no-op (pushing checks the bound), spares a bounds check here.
            let node = walk.pending[walk.pending_len & (PENDING_CAPACITY - 1)];
            walk.expand::<false, OPTIONAL>(node);
        }
        single_steps + walk.longer.len(walk.used_slots)
    }
}

impl CountingWalk<'_> {
    /// Takes every capturing step of `node`. `FIRST`: these are first steps, which are
    /// counted (the number is returned) rather than recorded, since a single-step route never
    /// merges with another (see `ChainSink::finish`).
    #[inline(always)]
    fn expand<const FIRST: bool, const OPTIONAL: bool>(&mut self, node: PendingStep) -> usize {
        // The loop of `ChainWalk::extend` (sharing its landing lookup, `next_landing`),
        // written out again on purpose: shared through a closure, it cost 2% more
        // instructions here and 1% more in `bench`. Approaches
        // first, then withdrawals: a landing point with both is looked up twice, which is
        // rare and cheaper than testing both kinds at every landing point. A macro rather
        // than a function for the two loops: as a function (a constant parameter for the
        // kind), perft 5 cost 4.7% more instructions.
        let at = node.at as usize & (TABLE_ROWS - 1);
        let mut single_steps = 0;
        macro_rules! take_steps {
            ($landings:expr, $line:ident, $run_flip:expr) => {
                let mut landings = $landings;
                while landings != 0 {
                    let (to, to_bit, d, arrival) = next_landing(at, &mut landings);
                    let run = capture_run(arrival.$line, d ^ $run_flip, node.them);
                    single_steps += self.land::<FIRST, OPTIONAL>(
                        to as u8,
                        node.blocked | to_bit,
                        arrival,
                        node.them & !run,
                    );
                }
            };
        }
        take_steps!(node.approach, approach_line, 0);
        // A withdrawal's run goes the other way.
        take_steps!(node.withdrawal, withdrawal_line, 4);
        single_steps
    }

    /// The stone has landed on `at` as `arrival` says, may no longer land on `blocked` and
    /// has left the enemy stones `them_left`: queues the landing point if a capture follows
    /// and counts or records the turn if it may end here.
    #[inline(always)]
    fn land<const FIRST: bool, const OPTIONAL: bool>(
        &mut self,
        at: u8,
        blocked: u64,
        arrival: &Arrival,
        them_left: u64,
    ) -> usize {
        let (approach, withdrawal) = arrival.next.landings(them_left, !(blocked | them_left));
        let continues = approach | withdrawal != 0;
        if continues {
            self.pending[self.pending_len] = PendingStep {
                at,
                them: them_left,
                blocked,
                approach,
                withdrawal,
            };
            self.pending_len += 1;
        }
        if OPTIONAL || !continues {
            if FIRST {
                return 1;
            }
            // The stone's turns differ by where they end and what they leave. Every route of
            // two or more steps is looked up: routes over different points can merge too (in
            // 200,000 random positions, 126 of 1,140 merged turns had routes over different
            // points, some of different lengths), so no cheap rule tells which are safe.
            let key = them_left | u64::from(at) << TURN_KEY_END_SHIFT;
            self.longer.insert(&mut self.used_slots, key);
        }
        0
    }
}

/// Where a counted turn's end point goes in its key, above every point of the board.
const TURN_KEY_END_SHIFT: u32 = 56;

/// A set of turn keys (a turn's end point and the enemy stones it leaves: what tells two
/// routes of one stone apart), made for many insertions and few repeats.
///
/// Each key has a home slot among 64 chosen by a hash; a word kept by the caller marks the
/// filled slots (a register in the walk), so clearing the set clears that word. A key whose
/// home holds another key goes to `overflow`.
/// Merged routes are rare (22 of 309,587 longer routes at perft 5), so nearly every
/// insertion is a bit test and a store.
struct TurnKeys {
    slots: [u64; 64],
    overflow: Vec<u64>,
}

impl Default for TurnKeys {
    fn default() -> TurnKeys {
        TurnKeys {
            slots: [0; 64],
            overflow: Vec::with_capacity(64),
        }
    }
}

impl TurnKeys {
    /// Empties the set but for the slots, which the caller marks free.
    #[inline(always)]
    fn clear(&mut self) {
        self.overflow.clear();
    }

    /// Adds `key` unless the set holds it already; `used` marks the slots in use.
    #[inline(always)]
    fn insert(&mut self, used: &mut u64, key: u64) {
        let home = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        let home_bit = 1u64 << home;
        if *used & home_bit == 0 {
            *used |= home_bit;
            self.slots[home] = key;
        } else if self.slots[home] != key && !self.overflow.contains(&key) {
            self.overflow.push(key);
        }
    }

    /// The number of keys in the set, `used` marking the slots in use.
    #[inline(always)]
    fn len(&self, used: u64) -> usize {
        used.count_ones() as usize + self.overflow.len()
    }
}

/// Appends `turn` to `turns` unless `turns[first..]` holds it already. `seen_filter` has
/// one bit per hash of the turns appended since `first`: merges are rare, so most turns
/// miss it and are appended without a search.
#[inline(always)]
fn push_unless_seen(turns: &mut Vec<Turn>, first: usize, seen_filter: &mut u64, turn: Turn) {
    let filter_bit = 1u64 << (turn.key().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
    if *seen_filter & filter_bit != 0 && turns[first..].contains(&turn) {
        return;
    }
    *seen_filter |= filter_bit;
    turns.push(turn);
}

/// Every legal turn, in generation order. Allocates; the search uses [`generate_turns`].
pub fn legal_turns(position: &Position, chain_rule: ChainRule) -> Vec<Turn> {
    let mut turns = Vec::new();
    generate_turns(position, chain_rule, &mut turns);
    turns
}

/// Every legal route: every way of spelling every legal turn, routes of the same turn
/// included separately. For the notation, not for the search.
pub fn legal_routes(position: &Position, chain_rule: ChainRule) -> Vec<Route> {
    routes_of(position, chain_rule, Bitboard::ALL)
}

/// The legal routes of the stone on `from` (none if it has no legal turn).
pub fn stone_routes(position: &Position, chain_rule: ChainRule, from: Square) -> Vec<Route> {
    routes_of(position, chain_rule, from.into())
}

fn routes_of(position: &Position, chain_rule: ChainRule, stones: Bitboard) -> Vec<Route> {
    let (us, them) = (position.us(), position.them());
    let capturers = capturing_stones(us, them, position.empty());
    if capturers.is_empty() {
        let mut turns = Vec::new();
        generate_turns(position, chain_rule, &mut turns);
        return turns
            .into_iter()
            .filter(|turn| stones.contains(turn.from()))
            .map(|turn| Route {
                turn,
                steps: vec![Step {
                    to: turn.to(),
                    kind: None,
                }],
            })
            .collect();
    }
    let mut routes = Vec::new();
    for from in capturers & stones {
        let mut sink = RouteRecorder {
            from,
            them,
            steps: Vec::new(),
            routes: &mut routes,
        };
        walk_chains(
            from,
            position.us_and_off_board(),
            them,
            u64::MAX,
            chain_rule,
            &mut sink,
        );
    }
    routes
}

/// What the chain walk reports: each capturing step as it is taken and undone, and each
/// point where the turn may end.
trait ChainSink {
    /// A capturing step to `to` is taken (only sinks that record routes need it).
    #[inline(always)]
    fn enter(&mut self, _to: u8, _kind: CaptureKind) {}
    /// The last step entered is taken back.
    #[inline(always)]
    fn leave(&mut self) {}
    /// The turn may end on `to` with the enemy stones reduced to `them_left`, after one
    /// capturing step if `single_step`.
    ///
    /// A single-step route never ends like another route of the same stone: it captures one
    /// run on its own line, and any longer route's first step leaves that line (going back
    /// along it captures nothing of the run, or needs the run's first point to be empty), so
    /// its first run lies on another line through the start, which meets the run's line only
    /// at the start point, where no enemy stands. Sinks merging routes skip those.
    fn finish(&mut self, to: u8, them_left: u64, single_step: bool);
}

/// Collects one stone's turns, merging routes that end alike.
///
/// Merges are rare (22 of 431,852 routes at perft 5), so each new turn is first looked up
/// in a 64-bit filter of the stone's turns so far and compared in full only on a hit.
struct TurnCollector<'a> {
    out: &'a mut Vec<Turn>,
    /// Index of this stone's first turn in `out`: routes merge only within one stone.
    first: usize,
    from: Square,
    them: u64,
    /// The merge filter of [`push_unless_seen`] for this stone's turns.
    seen_filter: u64,
}

impl<'a> TurnCollector<'a> {
    fn new(out: &'a mut Vec<Turn>, from: Square, them: Bitboard) -> TurnCollector<'a> {
        TurnCollector {
            first: out.len(),
            out,
            from,
            them: them.bits(),
            seen_filter: 0,
        }
    }
}

impl ChainSink for TurnCollector<'_> {
    #[inline(always)]
    fn finish(&mut self, to: u8, them_left: u64, single_step: bool) {
        let turn = Turn::new(
            self.from,
            Square::from_index_unchecked(to),
            Bitboard::from_bits(self.them & !them_left),
        );
        // Single-step routes never merge (see `ChainSink::finish`): no lookup for them.
        if single_step {
            self.out.push(turn);
        } else {
            push_unless_seen(self.out, self.first, &mut self.seen_filter, turn);
        }
    }
}

/// Records every route with its steps.
struct RouteRecorder<'a> {
    from: Square,
    them: Bitboard,
    steps: Vec<Step>,
    routes: &'a mut Vec<Route>,
}

impl ChainSink for RouteRecorder<'_> {
    fn enter(&mut self, to: u8, kind: CaptureKind) {
        self.steps.push(Step {
            to: Square::from_index_unchecked(to),
            kind: Some(kind),
        });
    }

    fn leave(&mut self) {
        self.steps.pop();
    }

    fn finish(&mut self, to: u8, them_left: u64, _single_step: bool) {
        let captured = self.them & !Bitboard::from_bits(them_left);
        self.routes.push(Route {
            turn: Turn::new(self.from, Square::from_index_unchecked(to), captured),
            steps: self.steps.clone(),
        });
    }
}

/// Walks the capture chains of the stone on `from` whose first step lands on one of
/// `first_landings`; `blocked` holds the side's stones and the points off the board.
fn walk_chains(
    from: Square,
    blocked: Bitboard,
    them: Bitboard,
    first_landings: u64,
    chain_rule: ChainRule,
    sink: &mut impl ChainSink,
) {
    let walk = ChainWalk {
        others: (blocked & !Bitboard::from_square(from)).bits(),
        chain_rule,
    };
    let at = from.index();
    let landings = ADJACENT[at] & !(walk.others | them.bits()) & first_landings;
    let first_steps = capture_landings(at, them.bits(), landings);
    walk.extend::<true>(at as u8, them.bits(), 1 << at, first_steps, sink);
}

/// For one point, where its capturing steps land, as masks for bit extraction and deposit.
///
/// A step from point `p` in direction `d` lands on `p + delta(d)`; it captures by approach
/// when `p + 2 delta(d)` holds an enemy and by withdrawal when `p - delta(d)` does. `delta`
/// is a constant per direction (a point's index is `rank * 9 + file`), so sorting the
/// approach targets by index sorts them as their landing points, and sorting the
/// withdrawal targets sorts them the other way round. Extracting the enemy bits of the
/// targets and depositing them on the landing points (reversed for withdrawal) therefore
/// gives every capturing landing point in a few instructions, whatever the direction.
#[derive(Clone, Copy)]
struct CaptureGeometry {
    /// Points two steps away along a line: the first victims of an approach.
    approach_targets: u64,
    /// The landing points of those approaches, one per target.
    approach_landings: u64,
    /// Points one step behind: the first victims of a withdrawal.
    withdrawal_targets: u64,
    /// The landing points of those withdrawals, one per target.
    withdrawal_landings: u64,
    /// `8 - withdrawal_targets.count_ones()`: aligns an 8-bit reversal to the targets.
    withdrawal_shift: u32,
}

impl CaptureGeometry {
    const NONE: CaptureGeometry = CaptureGeometry {
        approach_targets: 0,
        approach_landings: 0,
        withdrawal_targets: 0,
        withdrawal_landings: 0,
        withdrawal_shift: 8,
    };

    /// The capturing steps from `sq` in the directions whose bit is set in `directions`.
    const fn of(sq: usize, directions: u32) -> CaptureGeometry {
        let mut geometry = CaptureGeometry::NONE;
        let mut d = 0;
        while d < 8 {
            let to = NEIGHBORS[sq][d];
            if directions >> d & 1 != 0 && to != NONE {
                let ahead = NEIGHBORS[to as usize][d];
                if ahead != NONE {
                    geometry.approach_targets |= 1 << ahead;
                    geometry.approach_landings |= 1 << to;
                }
                let behind = NEIGHBORS[sq][(d + 4) % 8];
                if behind != NONE {
                    geometry.withdrawal_targets |= 1 << behind;
                    geometry.withdrawal_landings |= 1 << to;
                    geometry.withdrawal_shift -= 1;
                }
            }
            d += 1;
        }
        geometry
    }

    /// The landing points among `free` from which a step captures, by approach and by
    /// withdrawal, with the enemy stones `them`.
    #[inline(always)]
    fn landings(&self, them: u64, free: u64) -> (u64, u64) {
        let approach_hits = extract_bits(them, self.approach_targets);
        let withdrawal_hits = extract_bits(them, self.withdrawal_targets);
        // At most eight targets each, so the extracted bits fit a byte.
        let withdrawal_hits =
            u64::from(REVERSED_BYTES[withdrawal_hits as usize & 0xFF]) >> self.withdrawal_shift;
        (
            deposit_bits(approach_hits, self.approach_landings) & free,
            deposit_bits(withdrawal_hits, self.withdrawal_landings) & free,
        )
    }
}

const fn build_capture_geometry() -> [CaptureGeometry; TABLE_ROWS] {
    let mut table = [CaptureGeometry::NONE; TABLE_ROWS];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        table[sq] = CaptureGeometry::of(sq, 0xFF);
        sq += 1;
    }
    table
}

/// `CAPTURE_GEOMETRY[point]`: see [`CaptureGeometry`].
const CAPTURE_GEOMETRY: [CaptureGeometry; TABLE_ROWS] = build_capture_geometry();

/// What a stone needs that has just stepped onto a point in some direction: the lines its
/// step captured along, and where a next capturing step can land (neither straight on nor
/// straight back).
#[derive(Clone, Copy)]
struct Arrival {
    /// The points beyond the landing point in the step's direction: an approach's run.
    approach_line: u64,
    /// The points behind the point the step left: a withdrawal's run.
    withdrawal_line: u64,
    /// The next capturing steps, in the six other directions.
    next: CaptureGeometry,
}

const fn build_arrivals() -> [[Arrival; 8]; TABLE_ROWS] {
    let none = Arrival {
        approach_line: 0,
        withdrawal_line: 0,
        next: CaptureGeometry::NONE,
    };
    let mut table = [[none; 8]; TABLE_ROWS];
    let mut to = 0;
    while to < NUM_SQUARES {
        let mut d = 0;
        while d < 8 {
            let back = (d + 4) % 8;
            let at = NEIGHBORS[to][back];
            if at != NONE {
                table[to][d] = Arrival {
                    approach_line: RAYS[to][d],
                    withdrawal_line: RAYS[at as usize][back],
                    next: CaptureGeometry::of(to, 0xFF & !(1 << d) & !(1 << back)),
                };
            }
            d += 1;
        }
        to += 1;
    }
    table
}

/// `ARRIVALS[point][direction]`: see [`Arrival`].
static ARRIVALS: [[Arrival; 8]; TABLE_ROWS] = build_arrivals();

const fn build_reversed_bytes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = (i as u8).reverse_bits();
        i += 1;
    }
    table
}

/// `REVERSED_BYTES[b]`: the byte `b` with its bit order reversed.
const REVERSED_BYTES: [u8; 256] = build_reversed_bytes();

/// The landing points among `landings` from which a step from `at` captures, by approach
/// and by withdrawal, with the enemy stones `them`.
#[inline(always)]
fn capture_landings(at: usize, them: u64, landings: u64) -> (u64, u64) {
    CAPTURE_GEOMETRY[at & (TABLE_ROWS - 1)].landings(them, landings)
}

/// The bits of `value` under `mask`, packed to the low end (the BMI2 `pext` instruction).
#[inline(always)]
fn extract_bits(value: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the instruction exists: this code is compiled only for targets with BMI2.
        unsafe { std::arch::x86_64::_pext_u64(value, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let (mut mask, mut packed, mut out_bit) = (mask, 0, 1u64);
        while mask != 0 {
            if value & mask & mask.wrapping_neg() != 0 {
                packed |= out_bit;
            }
            mask &= mask - 1;
            out_bit <<= 1;
        }
        packed
    }
}

/// The low bits of `value` spread over the set bits of `mask` in order (the BMI2 `pdep`
/// instruction).
#[inline(always)]
fn deposit_bits(value: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the instruction exists: this code is compiled only for targets with BMI2.
        unsafe { std::arch::x86_64::_pdep_u64(value, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let (mut mask, mut spread, mut in_bit) = (mask, 0, 1u64);
        while mask != 0 {
            if value & in_bit != 0 {
                spread |= mask & mask.wrapping_neg();
            }
            mask &= mask - 1;
            in_bit <<= 1;
        }
        spread
    }
}

/// The fixed facts of one stone's chain walk.
struct ChainWalk {
    /// The side's other stones, which never move during the turn.
    others: u64,
    chain_rule: ChainRule,
}

/// Takes the lowest landing point out of `landings` for a step from `at`: the point, its
/// bit, the step's direction and its arrival record.
#[inline(always)]
fn next_landing(at: usize, landings: &mut u64) -> (usize, u64, usize, &'static Arrival) {
    let to = landings.trailing_zeros() as usize & (TABLE_ROWS - 1);
    let to_bit = *landings & landings.wrapping_neg();
    *landings &= *landings - 1;
    let d = DIRECTION_BETWEEN[at][to] as usize & 7;
    (to, to_bit, d, &ARRIVALS[to][d])
}

impl ChainWalk {
    /// Takes every capturing step from `at`: by approach to each point of `approach`, by
    /// withdrawal to each point of `withdrawal` (in point order, approach first on a point
    /// that allows both), and reports it. `FIRST`: these are the turn's first steps.
    #[inline]
    fn extend<const FIRST: bool>(
        &self,
        at: u8,
        them: u64,
        visited: u64,
        (approach, withdrawal): (u64, u64),
        sink: &mut impl ChainSink,
    ) {
        let at = at as usize & (TABLE_ROWS - 1);
        let mut landings = approach | withdrawal;
        while landings != 0 {
            let (to, to_bit, d, arrival) = next_landing(at, &mut landings);
            let next_visited = visited | to_bit;
            if approach & to_bit != 0 {
                let run = capture_run(arrival.approach_line, d, them);
                let next = (them & !run, next_visited, arrival);
                self.step::<FIRST>(to as u8, CaptureKind::Approach, next, sink);
            }
            if withdrawal & to_bit != 0 {
                let run = capture_run(arrival.withdrawal_line, d ^ 4, them);
                let next = (them & !run, next_visited, arrival);
                self.step::<FIRST>(to as u8, CaptureKind::Withdrawal, next, sink);
            }
        }
    }

    #[inline(always)]
    fn step<const FIRST: bool>(
        &self,
        to: u8,
        kind: CaptureKind,
        (them_left, visited, arrival): (u64, u64, &Arrival),
        sink: &mut impl ChainSink,
    ) {
        sink.enter(to, kind);
        // Landing points: empty and not occupied before during this turn (the arrival's
        // geometry already leaves out straight on and straight back).
        let next = arrival
            .next
            .landings(them_left, !(self.others | them_left | visited));
        let continues = next.0 | next.1 != 0;
        if continues {
            self.extend::<false>(to, them_left, visited, next, sink);
        }
        if self.chain_rule == ChainRule::Optional || !continues {
            sink.finish(to, them_left, FIRST);
        }
        sink.leave();
    }
}

/// Directions whose steps increase the point index (north, north-east, east, north-west),
/// as bits of a byte.
const INCREASING_DIRECTIONS: u32 = 0b1000_0111;

/// The enemy stones removed by a capture along `line` (the points from the first victim
/// onwards in direction `d`): every enemy up to the first gap, friend or edge.
#[inline(always)]
fn capture_run(line: u64, d: usize, them: u64) -> u64 {
    let stops = line & !them;
    if stops == 0 {
        line
    } else if INCREASING_DIRECTIONS >> d & 1 != 0 {
        line & ((stops & stops.wrapping_neg()) - 1)
    } else {
        let last_stop = 63 - stops.leading_zeros();
        line & (u64::MAX << last_stop << 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse_position;
    use crate::rules::notation::{parse_turn, spell_route, spelled_turns};

    fn position(fen: &str) -> Position {
        parse_position(fen).unwrap()
    }

    fn turns_with(fen: &str, chain_rule: ChainRule) -> Vec<String> {
        spelled_turns(&position(fen), chain_rule)
            .into_iter()
            .map(|(spelling, _)| spelling)
            .collect()
    }

    fn turns(fen: &str) -> Vec<String> {
        turns_with(fen, ChainRule::Optional)
    }

    /// The position after playing `turn` (in notation) in `fen`, as a position string.
    fn after(fen: &str, turn: &str) -> String {
        let p = position(fen);
        let turn = parse_turn(&p, ChainRule::Optional, turn).unwrap();
        p.play(turn).to_string()
    }

    #[test]
    fn capture_by_approach() {
        assert_eq!(turns("9/9/9/9/W1B6 w"), ["a1b1A"]);
        assert_eq!(after("9/9/9/9/W1B6 w", "a1b1A"), "9/9/9/9/1W7 b 0 1");
    }

    #[test]
    fn capture_by_withdrawal() {
        assert_eq!(turns("9/9/9/9/BW7 w"), ["b1c1W"]);
        assert_eq!(after("9/9/9/9/BW7 w", "b1c1W"), "9/9/9/9/2W6 b 0 1");
    }

    #[test]
    fn approach_and_withdrawal_from_one_step_are_two_turns() {
        assert_eq!(turns("9/9/9/9/BW1B5 w"), ["b1c1A", "b1c1W"]);
        assert_eq!(after("9/9/9/9/BW1B5 w", "b1c1A"), "9/9/9/9/B1W6 b 0 1");
        assert_eq!(after("9/9/9/9/BW1B5 w", "b1c1W"), "9/9/9/9/2WB5 b 0 1");
    }

    #[test]
    fn capture_runs_stop_at_a_gap_a_friend_and_the_edge() {
        assert_eq!(after("9/9/9/9/W1BB1B3 w", "a1b1A"), "9/9/9/9/1W3B3 b 0 1");
        assert_eq!(after("9/9/9/9/W1BBWB3 w", "a1b1A"), "9/9/9/9/1W2WB3 b 0 1");
        assert_eq!(after("9/9/9/9/W1BBBBBBB w", "a1b1A"), "9/9/9/9/1W7 b 0 1");
        // Along a diagonal: a1-b2 approaches c3, d4, e5.
        assert_eq!(after("4B4/3B5/2B6/9/W8 w", "a1b2A"), "9/9/9/1W7/9 b 0 1");
    }

    #[test]
    fn a_chain_may_not_repeat_its_direction() {
        // After b1c1W the stone could approach e1 only by going east again.
        assert_eq!(turns("9/9/9/9/BW2B4 w"), ["b1c1W"]);
    }

    #[test]
    fn a_chain_may_not_revisit_a_point() {
        // From b2 a withdrawal to a1 would capture c3, but a1 is where the turn started.
        let fen = "9/9/1BB6/9/W1B6 w";
        assert_eq!(
            turns(fen),
            ["a1b1A", "a1b1Ab2A", "a1b2A", "a1b2Aa3W", "a1b2Ab1W"]
        );
    }

    #[test]
    fn freed_points_may_be_crossed_and_landed_on() {
        // a1b1A removes c1; the stone then goes b1-b2 (approach b3) and b2-c1 ... c1 was
        // freed by the first capture: landing there (withdrawal from a3) is legal.
        let fen = "9/9/BB7/9/W1B6 w";
        assert!(
            turns(fen).iter().any(|t| t == "a1b1Ab2Ac1W"),
            "{:?}",
            turns(fen)
        );
    }

    #[test]
    fn mandatory_continuation_keeps_only_finished_chains() {
        let fen = "9/9/1BB6/9/W1B6 w";
        assert_eq!(
            turns_with(fen, ChainRule::Mandatory),
            ["a1b1Ab2A", "a1b2Aa3W", "a1b2Ab1W"]
        );
    }

    #[test]
    fn paika_only_when_no_capture_exists() {
        let quiet = "9/9/4W4/9/B8 w";
        assert_eq!(
            turns(quiet),
            [
                "e3d2", "e3d3", "e3d4", "e3e2", "e3e4", "e3f2", "e3f3", "e3f4"
            ]
        );
        assert!(!has_capture(&position(quiet)));
        // The same with a capture elsewhere on the board: only the capture is legal.
        assert_eq!(turns("B1W6/9/4W4/9/9 w"), ["c5b5A"]);
        // Weak points have four lines only.
        assert_eq!(turns("9/9/3W5/9/B8 w"), ["d3c3", "d3d2", "d3d4", "d3e3"]);
    }

    #[test]
    fn routes_to_the_same_result_merge_into_one_turn() {
        let p = position("B1BB1BBBB/B3BBBBB/1B2WBWBW/W2BWWWWW/W4WWWW w");
        let routes = legal_routes(&p, ChainRule::Optional);
        let turns = legal_turns(&p, ChainRule::Optional);
        assert_eq!((routes.len(), turns.len()), (35, 34));
        let merged: Vec<String> = routes
            .iter()
            .filter(|r| routes.iter().filter(|o| o.turn == r.turn).count() == 2)
            .map(spell_route)
            .collect();
        assert_eq!(
            merged,
            ["e3d3Wd4Ac4Wc3Wb4Wb5Wc5W", "e3d3Wd4Wc4Wc3Wb4Ab5Wc5A"]
        );
        let spelled = spelled_turns(&p, ChainRule::Optional);
        assert!(spelled.iter().any(|(s, _)| s == "e3d3Wd4Ac4Wc3Wb4Wb5Wc5W"));
        assert!(!spelled.iter().any(|(s, _)| s == "e3d3Wd4Wc4Wc3Wb4Ab5Wc5A"));
    }

    #[test]
    fn no_stones_or_no_room_means_no_turn() {
        assert!(legal_turns(&position("2B2B3/9/2B5B/9/9 w"), ChainRule::Optional).is_empty());
        let blocked = position("9/9/9/WW7/BW7 b");
        assert!(!has_legal_turn(&blocked));
        assert!(legal_turns(&blocked, ChainRule::Optional).is_empty());
        assert!(has_legal_turn(&Position::start()));
    }

    #[test]
    fn count_matches_generation() {
        let mut scratch = TurnCounting::default();
        for fen in [
            "B1BB1BBBB/B3BBBBB/1B2WBWBW/W2BWWWWW/W4WWWW w",
            "9/9/1BB6/9/W1B6 w",
            "9/9/4W4/9/B8 w",
        ] {
            let p = position(fen);
            for rule in [ChainRule::Optional, ChainRule::Mandatory] {
                assert_eq!(
                    count_turns(&p, rule, &mut scratch),
                    legal_turns(&p, rule).len(),
                    "{fen} {rule:?}"
                );
            }
        }
    }

    #[test]
    fn turn_keys_count_each_key_once_also_when_homes_collide() {
        let home = |key: u64| key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58;
        // Three keys with one home: the second and third go to the overflow list.
        let shared: Vec<u64> = (1..).filter(|&k| home(k) == home(1)).take(3).collect();
        let other = (1..).find(|&k| home(k) != home(1)).unwrap();
        let mut keys = TurnKeys::default();
        let mut used = 0;
        for key in [
            shared[0], shared[1], other, shared[2], shared[1], shared[0], other,
        ] {
            keys.insert(&mut used, key);
        }
        assert_eq!(keys.len(used), 4);
        // Cleared (the list, and the caller's word), the set starts anew.
        keys.clear();
        let mut used = 0;
        for key in [shared[1], shared[0], shared[1]] {
            keys.insert(&mut used, key);
        }
        assert_eq!(keys.len(used), 2);
    }
}
