//! How large must a defence be? A measurement for the solver's hardest case, the quiet
//! draw, run on positions the endgame tables hold.
//!
//! A draw is proved by each side's defence: a strategy over positions under which that
//! side never loses (`vato solve --check` follows every line it allows). This program
//! builds one from `FEN` without any search, choosing the defender's turn by a rule, and
//! counts the positions it reaches; lines that capture leave the position's stone count
//! and end in the tables of fewer stones, as they do for the solver.
//!
//! ```sh unchecked
//! cargo run --release --example defence_size -- "7BW/9/8W/4B2W1/4B2W1 w 0 1" fewest
//! ```
//!
//! Rules (the tables holding the position must be in the default folder):
//! - `first`: the defender knows every value (the tables of the position's stone count)
//!   and plays the first turn that does not lose, in the move generator's order;
//! - `fewest`: the same knowledge, and the turn that leaves the other side the fewest
//!   replies still to answer, a reply the defence has not reached yet counting twice;
//! - `evaluation`: no knowledge of the position's own layer: the turn the hand-written
//!   evaluation likes best for the defender (then `fewest`), leaving out the turns the
//!   smaller tables show lost at once. It says how often its choice is lost, by the
//!   tables, and how far those losses are (turns to the next capture), over its first
//!   20,000 choices.
//!
//! An optional third argument caps the positions gathered (default 30 million).

use std::collections::HashSet;
use vato::engine::evaluate::evaluate;
use vato::parse_position;
use vato::rules::Rules;
use vato::rules::movegen::has_legal_turn;
use vato::rules::position::{Color, Position};
use vato::rules::turn::Turn;
use vato::tablebase::{Outcome, Tablebase, default_dir};

/// With `evaluation`, the choices looked at: a defender that is sometimes wrong goes on
/// into lost ground, so its size says little; how often it is wrong is the measure.
const EVALUATION_CHOICES: u64 = 20_000;

/// How the defender chooses its turn.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Rule {
    First,
    Fewest,
    Evaluation,
}

/// What one defence came to.
#[derive(Default)]
struct Gathered {
    positions: usize,
    capped: bool,
    /// With `Rule::Evaluation`: the choices made, those the tables call lost, and the
    /// distances of those losses (turns to the next capture, the last bucket 63 and more).
    choices: u64,
    lost_choices: u64,
    distances: Vec<u64>,
}

struct Board<'a> {
    rules: Rules,
    tables: &'a Tablebase,
    root_stones: u32,
}

impl Board<'_> {
    fn stones(position: &Position) -> u32 {
        position.stones(Color::White).count() + position.stones(Color::Black).count()
    }

    fn turns(&self, position: &Position) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.rules.turn_rules().generate(position, &mut turns);
        turns
    }

    /// Whether a line ends at `position`: a capture left the root's layer, or the game
    /// is over.
    fn ends_at(&self, position: &Position) -> bool {
        Self::stones(position) < self.root_stones || !has_legal_turn(position)
    }

    /// The value of `position` for `owner`, by the tables (a finished game by the rules).
    fn value_for(&self, position: &Position, owner: Color) -> Outcome {
        let outcome = if position.us().is_empty() || !has_legal_turn(position) {
            Outcome::Loss
        } else {
            self.tables
                .probe_outcome(position)
                .expect("the tables hold the position")
        };
        match (position.side_to_move() == owner, outcome) {
            (true, outcome) | (false, outcome @ Outcome::Draw) => outcome,
            (false, Outcome::Win) => Outcome::Loss,
            (false, Outcome::Loss) => Outcome::Win,
        }
    }

    /// The replies at `position` (the other side to move) still to answer, a reply not
    /// `seen` counting twice; `None` when one of them ends the game lost for `owner`.
    fn replies_left(&self, position: &Position, owner: Color, seen: &HashSet<u64>) -> Option<u64> {
        let mut left = 0;
        for turn in self.turns(position) {
            let reply = position.play(turn);
            if self.ends_at(&reply) {
                if self.value_for(&reply, owner) == Outcome::Loss {
                    return None;
                }
            } else {
                left += 1 + u64::from(!seen.contains(&reply.key()));
            }
        }
        Some(left)
    }

    /// The defender's turn at `position` by `rule`: the position it leads to, or `None`
    /// when every turn is known lost.
    fn choose(
        &self,
        position: &Position,
        owner: Color,
        rule: Rule,
        seen: &HashSet<u64>,
    ) -> Option<Position> {
        let mut best: Option<((i64, u64), Position)> = None;
        for turn in self.turns(position) {
            let next = position.play(turn);
            let knows_all = rule != Rule::Evaluation;
            if (knows_all || self.ends_at(&next)) && self.value_for(&next, owner) == Outcome::Loss {
                continue;
            }
            let rank = if self.ends_at(&next) {
                (i64::MIN, 0)
            } else {
                let Some(left) = self.replies_left(&next, owner, seen) else {
                    continue;
                };
                match rule {
                    Rule::First => (0, 0),
                    Rule::Fewest => (0, left),
                    // The evaluation is the other side's: the lower, the better.
                    Rule::Evaluation => (i64::from(evaluate(&next)), left),
                }
            };
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                best = Some((rank, next));
            }
        }
        best.map(|(_, next)| next)
    }

    /// `owner`'s defence from `root` by `rule`, gathered depth first.
    fn defence(&self, root: Position, owner: Color, rule: Rule, cap: usize) -> Gathered {
        let mut gathered = Gathered {
            distances: vec![0; 64],
            ..Gathered::default()
        };
        let mut seen = HashSet::from([root.key()]);
        let mut stack = vec![root];
        while let Some(position) = stack.pop() {
            if seen.len() > cap || gathered.choices >= EVALUATION_CHOICES {
                gathered.capped = true;
                break;
            }
            let next: Vec<Position> = if position.side_to_move() == owner {
                let Some(next) = self.choose(&position, owner, rule, &seen) else {
                    continue;
                };
                if rule == Rule::Evaluation {
                    gathered.choices += 1;
                    if self.value_for(&next, owner) == Outcome::Loss {
                        gathered.lost_choices += 1;
                        let distance = self.tables.probe(&next).map_or(0, |v| v.distance);
                        gathered.distances[usize::from(distance).min(63)] += 1;
                    }
                }
                vec![next]
            } else {
                self.turns(&position)
                    .into_iter()
                    .map(|turn| position.play(turn))
                    .collect()
            };
            for child in next {
                if !self.ends_at(&child) && seen.insert(child.key()) {
                    stack.push(child);
                }
            }
        }
        gathered.positions = seen.len();
        gathered
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(fen), Some(rule)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: defence_size FEN first|fewest|evaluation [CAP]");
        std::process::exit(2);
    };
    let rule = match rule.as_str() {
        "first" => Rule::First,
        "fewest" => Rule::Fewest,
        "evaluation" => Rule::Evaluation,
        other => {
            eprintln!("unknown rule {other}: first, fewest or evaluation");
            std::process::exit(2);
        }
    };
    let cap = args
        .get(3)
        .map_or(30_000_000, |c| c.parse().expect("a number of positions"));
    let root = parse_position(fen).expect("a position");
    let rules = Rules::default();
    let dir = default_dir().expect("a tables folder");
    let root_stones = Board::stones(&root);
    let tables = Tablebase::open(&dir, rules, root_stones as usize).expect("the tables");
    let board = Board {
        rules,
        tables: &tables,
        root_stones,
    };
    for owner in [Color::White, Color::Black] {
        if board.value_for(&root, owner) == Outcome::Loss {
            println!("{}: loses", owner.name());
            continue;
        }
        let gathered = board.defence(root, owner, rule, cap);
        print!(
            "{}'s defence: {}{} positions",
            owner.name(),
            if gathered.capped { "more than " } else { "" },
            gathered.positions
        );
        if rule == Rule::Evaluation {
            let far: Vec<String> = (0..64)
                .filter(|&d| gathered.distances[d] > 0)
                .map(|d| format!("{d}:{}", gathered.distances[d]))
                .collect();
            print!(
                "; {} of {} choices lost (distance:count {})",
                gathered.lost_choices,
                gathered.choices,
                far.join(" ")
            );
        }
        println!();
    }
}
