//! `bench`: a fixed search over built-in positions from every phase of the game. Its node
//! count is the search's signature: the same build always gives the same count, and any
//! change to search or evaluation changes it.

use crate::engine::nnue::Network;
use crate::engine::search::{Limits, SearchRequest, Signals, search};
use crate::engine::tt::TranspositionTable;
use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::position::Position;
use crate::tablebase::Tablebase;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Depth searched when none is given.
pub const DEFAULT_DEPTH: u32 = 6;

/// Positions from random games of 0 to 60 turns: opening, middle game and endings.
const POSITIONS: &[&str] = &[
    "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1",
    "BBBBBB1BB/BBBBBBBBB/BWBWW1WBW/WWW1W1WWW/WWWWW1WWW w 0 2",
    "BBBBBBBBB/BBBBB1B1B/BWBWWBWB1/WWW1WWWWW/WWWWWWWWW w 0 2",
    "BBBB1BBBB/BBBBB2BB/BWBWWB1B1/WWW1WWWWW/WWWWWWWWW w 0 3",
    "BBBBBBBBB/BBBBB1B1B/BWBW2WB1/WWWWW1WWW/WWWWW1WWW w 0 3",
    "BBBBBBBBB/1BB1BBBBB/BW2B1WBW/1WWWWWWWW/1W1WWWWWW w 0 4",
    "BBBBBBBBB/BBBBBBB1B/BW1WWW3/WWW2WWWW/WWWW2WWW w 0 4",
    "BB1BBBBBB/BBBBBBB1B/1W3WB1W/WWWBW1WWW/WWW2WWWW w 0 5",
    "1BBBBBBBB/1B1BB1BBB/WWBWB1WBW/4WWWWW/1W1WWWWWW w 0 5",
    "BBB1BBBBB/B1B1BBBBB/1B6W/W1W1WWWWW/W1WWWWWWW w 0 6",
    "BBBBB1BBB/BB2B1BBB/2B1WWWBW/1W3WWWW/WW3WWWW w 0 6",
    "BBBB1B1BB/BBBWB1BBB/5B1BW/WWWW1WWWW/WW1W1WWWW w 0 6",
    "B1BB1BBBB/B1B2BBBB/1W4B1W/W1W2WWWW/1W3WWWW w 0 8",
    "BBBB1BBBB/B3B1BBB/3BB1W1W/W3WWW1W/WW3WWWW w 0 8",
    "1BBBBB1B1/1BBBBB2B/3B2W2/2W1WW1WW/W1WW1WWWW w 0 8",
    "B1B2BBBB/1B3WBBB/B3W4/W4BWWW/1W4WWW w 0 10",
    "BBBBBBBBB/8B/9/1W5WW/WWWW1BWWW w 0 10",
    "B1B2BBBB/B5B1B/1W2B1WB1/W5W1W/1WWW1W1WW w 0 10",
    "B1B1B3B/9/1B7/2W2W3/1W1W1W1W1 w 1 13",
    "6BB1/3B5/9/7W1/3W2WWW w 0 13",
    "1B1B3BB/2BB1WBB1/4W3B/5W3/3WWW3 w 0 13",
    "1BBBB2B1/9/B3B3W/8W/9 w 2 16",
    "BB5B1/1BB6/3W5/7B1/1W1W5 w 0 16",
    "B1B4B1/6W2/4B4/W3WWWW1/9 w 4 16",
    "8B/1W2BB3/1W5W1/W8/7W1 w 6 21",
    "7BB/W5B2/1WW6/W8/1W7 w 6 21",
    "1WW2W2B/2W6/8B/8B/9 w 19 31",
    "1BB1B2WW/3B4W/8W/9/8W w 7 31",
];

/// Fanoron-Dimy positions from random games of 0 to 20 turns.
const DIMY_POSITIONS: &[&str] = &[
    "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 1",
    "1BBBB/B1BBB/BWW1W/WWWBW/WWW1W w 0 2",
    "BB1BB/1B1BB/1BWBW/1W1WW/1WWWW b 0 2",
    "B2BB/B4/4W/W2B1/W2W1 w 0 3",
    "BB1B1/1B2B/1B1BW/3WW/2WWW w 0 4",
    "4B/4B/3W1/1B3/4W w 0 5",
    "3B1/B2W1/3W1/5/1W3 w 1 6",
    "1B1B1/1B3/5/W1W2/1WW2 w 5 7",
    "3BB/1B3/W4/1W3/5 w 1 8",
    "4B/2B2/5/1W3/5 w 3 9",
    "3B1/5/5/1W3/3W1 w 2 11",
];

/// The built-in Tsivy positions.
pub fn positions() -> Vec<Position> {
    positions_on(Board::Tsivy)
}

/// The built-in positions of the game on `board`.
pub fn positions_on(board: Board) -> Vec<Position> {
    let list = match board {
        Board::Tsivy => POSITIONS,
        Board::Dimy => DIMY_POSITIONS,
    };
    list.iter()
        .map(|fen| parse_position_on(board, fen).expect("built-in bench positions are valid"))
        .collect()
}

/// Table size for the bench, in MiB.
const BENCH_HASH_MB: usize = 16;

/// Searches every built-in position to `depth` (default [`DEFAULT_DEPTH`]) with one
/// thread, default rules and a table cleared before each position; returns one line per
/// position and the total line `<nodes> nodes <nps> nps`.
/// `network` is the evaluation's network (the hand-written evaluation when `None`).
pub fn run(depth: Option<u32>, board: Board, network: Option<Arc<Network>>) -> Vec<String> {
    run_until(depth, board, network, None, &Signals::new(false))
        .expect("a bench that is never stopped completes")
}

/// [`run`] with endgame tables probed below the root (the node count then differs: it is
/// no signature), to measure what the tables cost the search.
pub fn run_with_tables(
    depth: Option<u32>,
    board: Board,
    network: Option<Arc<Network>>,
    tables: Arc<Tablebase>,
) -> Vec<String> {
    run_until(depth, board, network, Some(tables), &Signals::new(false))
        .expect("a bench that is never stopped completes")
}

/// [`run`] that can be cut short: `None` once `signals` asked the searches to stop.
pub fn run_until(
    depth: Option<u32>,
    board: Board,
    network: Option<Arc<Network>>,
    tablebase: Option<Arc<Tablebase>>,
    signals: &Signals,
) -> Option<Vec<String>> {
    let pass = search_all(depth, board, network, tablebase, signals)?;
    let total = format!("{} nodes {} nps", pass.nodes, pass.nps());
    let mut lines = pass.lines;
    lines.push(total);
    Some(lines)
}

/// One search of every built-in position.
struct Pass {
    /// One line per position.
    lines: Vec<String>,
    nodes: u64,
    /// Searching only, without setting up.
    time: Duration,
}

impl Pass {
    fn nps(&self) -> u64 {
        (self.nodes as u128 * 1000 / self.time.as_millis().max(1)) as u64
    }
}

/// Searches every built-in position of `board` to `depth`, probing `tablebase` if given;
/// `None` once `signals` asked the searches to stop.
fn search_all(
    depth: Option<u32>,
    board: Board,
    network: Option<Arc<Network>>,
    tablebase: Option<Arc<Tablebase>>,
    signals: &Signals,
) -> Option<Pass> {
    let depth = depth.unwrap_or(DEFAULT_DEPTH).max(1);
    let tt = Arc::new(TranspositionTable::new(BENCH_HASH_MB));
    let mut pass = Pass {
        lines: Vec::new(),
        nodes: 0,
        time: Duration::ZERO,
    };
    for (index, position) in positions_on(board).into_iter().enumerate() {
        tt.clear();
        let request = SearchRequest {
            network: network.clone(),
            tablebase: tablebase.clone(),
            ..SearchRequest::new(vec![position], Limits::to_depth(depth), tt.clone())
        };
        let started = Instant::now();
        let nodes = search(&request, signals, &mut |_| {}).nodes;
        if signals.stopped() {
            return None;
        }
        pass.time += started.elapsed();
        pass.nodes += nodes;
        pass.lines
            .push(format!("position {:>2}: {nodes} nodes", index + 1));
    }
    Some(pass)
}

/// What the tables cost the search in time: `rounds` rounds, each searching the built-in
/// positions without the tables and then with them, one line a round and a last line with
/// the medians. The first round is the cold one (no page of the files mapped yet, no
/// block read); the later ones meet the blocks again, as the searches of a game do. Nodes
/// a second are compared, since the tables change the trees.
pub fn compare_tables(
    depth: Option<u32>,
    board: Board,
    network: Option<Arc<Network>>,
    tables: Arc<Tablebase>,
    rounds: usize,
) -> Vec<String> {
    let signals = Signals::new(false);
    let mut without = Vec::new();
    let mut with = Vec::new();
    let mut lines = Vec::new();
    for round in 1..=rounds.max(1) {
        let pass = |tables| {
            search_all(depth, board, network.clone(), tables, &signals)
                .expect("a bench that is never stopped completes")
        };
        let (plain, probed) = (pass(None), pass(Some(tables.clone())));
        lines.push(format!(
            "round {round}: without tables {} nodes {} nps, with tables {} nodes {} nps",
            plain.nodes,
            plain.nps(),
            probed.nodes,
            probed.nps()
        ));
        without.push(plain.nps());
        with.push(probed.nps());
    }
    let fewer = |with: u64, without: u64| 100.0 * (1.0 - with as f64 / without.max(1) as f64);
    let cold = fewer(with[0], without[0]);
    let (without, with) = (median(&mut without), median(&mut with));
    lines.push(format!(
        "median nps: without tables {without}, with tables {with} ({:.1}% fewer); \
         first round {cold:.1}% fewer",
        fewer(with, without)
    ));
    lines
}

/// The middle value (the lower of the two middle ones for an even count).
fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values[(values.len() - 1) / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_twenty_positions_with_legal_turns() {
        let positions = positions();
        assert!(positions.len() >= 20);
        for p in positions {
            assert!(crate::rules::movegen::has_legal_turn(&p), "{p}");
        }
        let dimy = positions_on(Board::Dimy);
        assert!(dimy.len() >= 10);
        for p in dimy {
            assert_eq!(p.board(), Board::Dimy);
            assert!(crate::rules::movegen::has_legal_turn(&p), "{p}");
        }
    }

    #[test]
    fn the_median_is_the_middle_value() {
        assert_eq!(median(&mut [5, 1, 3]), 3);
        assert_eq!(median(&mut [4, 1, 3, 2]), 2);
        assert_eq!(median(&mut [7]), 7);
    }

    #[test]
    fn node_count_is_deterministic() {
        let a = run(Some(2), Board::Tsivy, Some(crate::engine::nnue::embedded()));
        let b = run(Some(2), Board::Tsivy, Some(crate::engine::nnue::embedded()));
        let nodes = |lines: &[String]| lines.last().unwrap().split(' ').next().unwrap().to_string();
        assert_eq!(nodes(&a), nodes(&b));
        assert_eq!(a.len(), POSITIONS.len() + 1);
    }
}
