//! The tablebases against an independent solver, the board's symmetries and the
//! consistency rule, on the layers of up to four stones built into a temporary directory,
//! for Tsivy's board and Dimy's.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use vato::rules::bitboard::Bitboard;
use vato::rules::board::Board;
use vato::rules::movegen::legal_turns;
use vato::rules::position::{Color, Position};
use vato::rules::{ChainRule, Rules};
use vato::tablebase::{
    BuildOptions, Kind, Outcome, Progress, Tablebase, Value, build, build_layers, layer_size,
    layers_with, legacy_file_name, position_of, table_file_name,
};

const CHAIN: ChainRule = ChainRule::Optional;

/// A fresh directory under Cargo's scratch space for integration tests (inside the
/// target directory, so nothing is left elsewhere).
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tablebase-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("old scratch directory removable");
    }
    dir
}

/// The default rules on `board`.
fn rules_on(board: Board) -> Rules {
    Rules {
        board,
        ..Rules::default()
    }
}

/// The tables of up to four stones on `board`, built once for every test of this file (the
/// old ones removed first, so that every run builds them).
fn tables_dir_on(board: Board) -> &'static PathBuf {
    static DIRS: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    DIRS[board as usize].get_or_init(|| {
        let dir = temp_dir(&format!("four-{}", board.name()));
        build(&dir, 4, &rules_on(board), 2, Progress::Quiet).expect("build succeeds");
        dir
    })
}

fn tables_dir() -> &'static PathBuf {
    tables_dir_on(Board::Tsivy)
}

fn tablebase_on(board: Board) -> &'static Tablebase {
    static TABLES: [OnceLock<Tablebase>; 2] = [OnceLock::new(), OnceLock::new()];
    TABLES[board as usize].get_or_init(|| {
        Tablebase::open(tables_dir_on(board), rules_on(board), 8).expect("tables readable")
    })
}

fn tablebase() -> &'static Tablebase {
    tablebase_on(Board::Tsivy)
}

fn probe(tb: &Tablebase, position: &Position) -> Value {
    tb.probe(position).expect("position in the tables")
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WIN1: Value = Value {
    outcome: Outcome::Win,
    distance: 1,
};

/// An independent solution of every position with up to three stones, both colours to
/// move, found on an explicit graph: outcomes by the classic counting retrograde over all
/// turns, then distances by a breadth-first pass in increasing distance over the paikas.
fn independent_three_stones(board: Board) -> HashMap<Position, Value> {
    let mut nodes: Vec<Position> = Vec::new();
    for white in 1..=2u32 {
        for black in 1..=2u32 {
            if white + black > 3 {
                continue;
            }
            for w in subsets(board, white) {
                for bl in subsets(board, black) {
                    if w & bl != 0 {
                        continue;
                    }
                    for side in [Color::White, Color::Black] {
                        nodes.push(
                            Position::new_on(
                                board,
                                Bitboard::from_bits(w),
                                Bitboard::from_bits(bl),
                                side,
                                0,
                                1,
                            )
                            .unwrap(),
                        );
                    }
                }
            }
        }
    }
    let id: HashMap<Position, usize> = nodes.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let n = nodes.len();
    // Per node: (child id or None for a child whose mover has no stones, is_capture).
    let children: Vec<Vec<(Option<usize>, bool)>> = nodes
        .iter()
        .map(|p| {
            legal_turns(p, CHAIN)
                .into_iter()
                .map(|t| {
                    let c = p.play(t);
                    let child = if c.us().is_empty() {
                        None
                    } else {
                        Some(
                            id[&Position::new_on(
                                board,
                                c.stones(Color::White),
                                c.stones(Color::Black),
                                c.side_to_move(),
                                0,
                                1,
                            )
                            .unwrap()],
                        )
                    };
                    (child, t.is_capture())
                })
                .collect()
        })
        .collect();
    let mut parents: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for (p, list) in children.iter().enumerate() {
        for &(c, capture) in list {
            if let Some(c) = c {
                parents[c].push((p, capture));
            }
        }
    }
    // Outcomes.
    let mut outcome: Vec<Option<Outcome>> = vec![None; n];
    let mut left: Vec<usize> = children.iter().map(Vec::len).collect();
    let mut queue = Vec::new();
    for i in 0..n {
        if children[i].is_empty() {
            outcome[i] = Some(Outcome::Loss);
            queue.push(i);
        } else if children[i].iter().any(|&(c, _)| c.is_none()) {
            outcome[i] = Some(Outcome::Win);
            queue.push(i);
        }
    }
    while let Some(c) = queue.pop() {
        for &(p, _) in &parents[c] {
            if outcome[p].is_some() {
                continue;
            }
            if outcome[c] == Some(Outcome::Loss) {
                outcome[p] = Some(Outcome::Win);
                queue.push(p);
            } else {
                left[p] -= 1;
                if left[p] == 0 {
                    outcome[p] = Some(Outcome::Loss);
                    queue.push(p);
                }
            }
        }
    }
    let outcome: Vec<Outcome> = outcome
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Draw))
        .collect();
    // Distances: a position that must capture is decided by its first turn.
    let mut distance: Vec<Option<u16>> = vec![None; n];
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); 2];
    let mut paikas_left: Vec<usize> = vec![0; n];
    let mut longest: Vec<u16> = vec![0; n];
    for i in 0..n {
        if outcome[i] == Outcome::Draw {
            continue;
        }
        if children[i].is_empty() {
            distance[i] = Some(0);
            buckets[0].push(i);
        } else if children[i][0].1 {
            distance[i] = Some(1);
            buckets[1].push(i);
        } else {
            paikas_left[i] = children[i].len();
        }
    }
    let mut d = 0;
    while d < buckets.len() {
        let current = std::mem::take(&mut buckets[d]);
        for c in current {
            for &(p, capture) in &parents[c] {
                if capture || distance[p].is_some() || outcome[p] == Outcome::Draw {
                    continue;
                }
                let found = if outcome[c] == Outcome::Loss && outcome[p] == Outcome::Win {
                    Some(d as u16 + 1)
                } else if outcome[c] == Outcome::Win && outcome[p] == Outcome::Loss {
                    longest[p] = longest[p].max(d as u16 + 1);
                    paikas_left[p] -= 1;
                    (paikas_left[p] == 0).then_some(longest[p])
                } else {
                    None
                };
                if let Some(found) = found {
                    distance[p] = Some(found);
                    let slot = usize::from(found);
                    if buckets.len() <= slot {
                        buckets.resize(slot + 1, Vec::new());
                    }
                    buckets[slot].push(p);
                }
            }
        }
        d += 1;
        if d == buckets.len() {
            buckets.push(Vec::new());
            if buckets.iter().all(Vec::is_empty) {
                break;
            }
        }
    }
    nodes
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let value = match outcome[i] {
                Outcome::Draw => Value::DRAW,
                o => Value {
                    outcome: o,
                    distance: distance[i].expect("decided positions get a distance"),
                },
            };
            (p, value)
        })
        .collect()
}

/// Every set of `k` (one or two) points of `board`.
fn subsets(board: Board, k: u32) -> Vec<u64> {
    let points: Vec<u64> = board.points().into_iter().map(|s| 1 << s.index()).collect();
    let mut out = Vec::new();
    for (i, &x) in points.iter().enumerate() {
        if k == 1 {
            out.push(x);
        } else {
            for &y in &points[i + 1..] {
                out.push(x | y);
            }
        }
    }
    out
}

fn oracle_on(board: Board) -> &'static HashMap<Position, Value> {
    static ORACLES: [OnceLock<HashMap<Position, Value>>; 2] = [OnceLock::new(), OnceLock::new()];
    ORACLES[board as usize].get_or_init(|| independent_three_stones(board))
}

fn oracle() -> &'static HashMap<Position, Value> {
    oracle_on(Board::Tsivy)
}

fn normalized(p: &Position) -> Position {
    Position::new_on(
        p.board(),
        p.stones(Color::White),
        p.stones(Color::Black),
        p.side_to_move(),
        0,
        1,
    )
    .unwrap()
}

#[test]
fn every_position_of_up_to_three_stones_matches_the_independent_solver() {
    let tb = tablebase();
    let oracle = oracle();
    assert_eq!(oracle.len(), 2 * (1980 + 2 * 42570));
    for (position, &expected) in oracle {
        assert_eq!(probe(tb, position), expected, "{position:?}");
    }
}

#[test]
fn every_dimy_position_of_up_to_three_stones_matches_the_independent_solver() {
    let tb = tablebase_on(Board::Dimy);
    let oracle = oracle_on(Board::Dimy);
    // 25 x 24 placements of one stone each, 300 x 23 of two against one, both ways round.
    assert_eq!(oracle.len(), 2 * (600 + 2 * 6900));
    let mut decided = 0;
    for (position, &expected) in oracle {
        assert_eq!(probe(tb, position), expected, "{position:?}");
        decided += usize::from(expected.outcome != Outcome::Draw);
    }
    assert!(decided > 1000, "the board's positions are not all draws");
}

/// The value of `p` if its distance is at most `depth`, found by plain minimax over the
/// paikas with the independent three-stone solution for what follows a capture.
fn bounded(p: &Position, depth: u16) -> Option<Value> {
    let turns = legal_turns(p, CHAIN);
    if turns.is_empty() {
        return Some(Value {
            outcome: Outcome::Loss,
            distance: 0,
        });
    }
    let mut best_win: Option<u16> = None;
    let mut worst_loss = 0;
    let mut all_lost = true;
    let mut all_known = true;
    for t in turns {
        let child = p.play(t);
        let option = if child.us().is_empty() {
            Some(WIN1)
        } else if t.is_capture() {
            Some(oracle()[&normalized(&child)].through_turn(true))
        } else if depth >= 2 {
            bounded(&child, depth - 1).map(|v| v.through_turn(false))
        } else {
            None
        };
        match option {
            None => {
                all_known = false;
                all_lost = false;
            }
            Some(v) => match v.outcome {
                Outcome::Win => best_win = Some(best_win.map_or(v.distance, |b| b.min(v.distance))),
                Outcome::Loss => worst_loss = worst_loss.max(v.distance),
                Outcome::Draw => all_lost = false,
            },
        }
    }
    match best_win {
        Some(d) if d <= depth => Some(Value {
            outcome: Outcome::Win,
            distance: d,
        }),
        Some(_) => None,
        None if all_lost && worst_loss <= depth => Some(Value {
            outcome: Outcome::Loss,
            distance: worst_loss,
        }),
        None if all_known && !all_lost => Some(Value::DRAW),
        None => None,
    }
}

#[test]
fn random_four_stone_positions_match_a_bounded_minimax() {
    let tb = tablebase();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let depth = 3;
    let mut decided = 0;
    for (a, b) in layers_with(4) {
        for _ in 0..150 {
            let p = position_of(
                Board::Tsivy,
                a,
                b,
                rng.below(layer_size(Board::Tsivy, a, b)),
            );
            let value = probe(tb, &p);
            match bounded(&p, depth) {
                Some(v) => {
                    decided += 1;
                    assert_eq!(value, v, "{p:?}");
                }
                None => assert!(
                    value.outcome == Outcome::Draw || value.distance > depth,
                    "{p:?}: tables say {value}, minimax found nothing within {depth}"
                ),
            }
        }
    }
    assert!(decided > 100, "the sample should exercise the check");
}

#[test]
fn mirror_images_and_colour_flips_have_the_same_value() {
    for board in Board::ALL {
        mirror_images_and_colour_flips_have_the_same_value_on(board);
    }
}

fn mirror_images_and_colour_flips_have_the_same_value_on(board: Board) {
    let tb = tablebase_on(board);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for stones in 2..=4 {
        for (a, b) in layers_with(stones) {
            for _ in 0..2000 {
                let p = position_of(board, a, b, rng.below(layer_size(board, a, b)));
                let value = probe(tb, &p);
                for image in [p.mirror_files(), p.mirror_ranks(), p.rotate(), p.flip()] {
                    assert_eq!(probe(tb, &image), value, "{p:?}");
                }
            }
        }
    }
}

#[test]
fn values_are_consistent_with_the_children() {
    for board in Board::ALL {
        values_are_consistent_with_the_children_on(board);
    }
}

fn values_are_consistent_with_the_children_on(board: Board) {
    let tb = tablebase_on(board);
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for stones in 2..=4 {
        for (a, b) in layers_with(stones) {
            let size = layer_size(board, a, b);
            let samples = size.min(20_000);
            for k in 0..samples {
                let index = if samples == size { k } else { rng.below(size) };
                let p = position_of(board, a, b, index);
                let value = probe(tb, &p);
                let options: Vec<Value> = legal_turns(&p, CHAIN)
                    .into_iter()
                    .map(|t| {
                        let child = p.play(t);
                        if child.us().is_empty() {
                            WIN1
                        } else {
                            probe(tb, &child).through_turn(t.is_capture())
                        }
                    })
                    .collect();
                let best = options
                    .iter()
                    .copied()
                    .max_by_key(|v| v.preference())
                    .unwrap_or(Value {
                        outcome: Outcome::Loss,
                        distance: 0,
                    });
                // A win has a child lost for the opponent at one turn less; a loss has only
                // children won by the opponent; a draw has no lost child and a drawn one.
                assert_eq!(value, best, "{p:?}: {options:?}");
            }
        }
    }
}

#[test]
fn the_probe_lists_every_turn_best_first() {
    let tb = tablebase();
    let p = vato::rules::fen::parse_position("9/9/4B4/9/W1W6 w").unwrap();
    assert_eq!(probe(tb, &p), WIN1);
    let turns = tb.probe_turns(&p).unwrap();
    assert_eq!(turns, vec![("c1d2A".to_string(), WIN1)]);
}

#[test]
fn finished_layers_are_kept_and_damaged_files_are_refused() {
    let dir = temp_dir("resume");
    let rules = Rules::default();
    let first = build(&dir, 3, &rules, 2, Progress::Quiet).unwrap();
    assert_eq!(first.solved.len(), 3);
    let second = build(&dir, 3, &rules, 2, Progress::Quiet).unwrap();
    assert!(second.solved.is_empty());
    assert_eq!(second.kept.len(), 3);

    // A flipped bit in the first block of 2v1's values (after the 64-byte header and 16
    // bytes of index a block): found when a probe first decodes that block, said once,
    // and the layer is no longer used; never a wrong value.
    let path = dir.join(table_file_name(Board::Tsivy, Kind::Wdl, 2, 1));
    let mut bytes = std::fs::read(&path).unwrap();
    let size = layer_size(Board::Tsivy, 2, 1);
    let blocks = size.div_ceil(vato::tablebase::BLOCK_ENTRIES as u64) as usize;
    bytes[64 + 16 * blocks + 7] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let tables = Tablebase::open(&dir, rules, 3).expect("the headers are whole");
    assert!(tables.layers().contains(&(2, 1)));
    let damaged_block = 0;
    let mut refused = 0;
    for index in 0..size {
        let position = position_of(Board::Tsivy, 2, 1, index);
        match tables.probe(&position) {
            Some(value) => assert_eq!(Some(value), oracle_value(&position), "{position}"),
            None => refused += 1,
        }
    }
    assert!(refused > 0, "a probe meets the damaged block");
    let faults = tables.take_faults();
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(
        faults[0].contains(&format!("block {damaged_block} fails its checksum"))
            && faults[0].contains("layer 2v1 is no longer used"),
        "{faults:?}"
    );
    assert!(!tables.layers().contains(&(2, 1)));
    assert!(tables.take_faults().is_empty(), "said once");
    // A build does not take the damaged layer as finished work to build on.
    let error = build(&dir, 4, &rules, 2, Progress::Quiet).expect_err("damage is found");
    assert!(format!("{error:#}").contains("checksum"), "{error:#}");

    let other = Rules {
        chain_rule: ChainRule::Mandatory,
        ..rules
    };
    let tables = Tablebase::open(&dir, other, 2).unwrap();
    assert!(tables.layers().is_empty());
    assert!(
        tables.refused()[0].contains("built for another chain rule"),
        "{:?}",
        tables.refused()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The oracle's value of a position of up to three stones, as the tables would give it.
fn oracle_value(position: &Position) -> Option<Value> {
    oracle().get(&normalized(position)).copied()
}

/// Runs the engine with `--tablebase-path` on the four-stone tables, sends `commands`,
/// and returns its output up to and including the first `bestmove` line.
fn engine_with_tables(commands: &[&str]) -> Vec<String> {
    engine_with_tables_in(tables_dir(), commands)
}

/// [`engine_with_tables`] with the tables in `dir`.
fn engine_with_tables_in(dir: &PathBuf, commands: &[&str]) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_vato"))
        .arg("--tablebase-path")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("piped");
    for command in commands {
        writeln!(stdin, "{command}").unwrap();
    }
    stdin.flush().unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let line = line.unwrap();
        let done = line.starts_with("bestmove");
        lines.push(line);
        if done {
            break;
        }
    }
    // Closing the input ends the session.
    drop(stdin);
    child.wait().unwrap();
    lines
}

/// The engine, started with `--tablebase-path`, answers a position of the tables from them
/// (an `info string tablebase ...` line and the tables' best turn) without searching.
#[test]
fn the_engine_plays_from_the_tables_at_the_root() {
    // White c3 and g3 against black e1: c3d2A takes the last black stone.
    let lines = engine_with_tables(&["position fen 9/9/2W3W2/9/4B4 w", "go depth 5"]);
    let text = lines.join("\n");
    assert!(
        lines.iter().any(|l| l == "info string tablebase win 1"),
        "{text}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove c3d2A", "{text}");
    assert!(
        lines.iter().all(|l| !l.starts_with("info depth 2")),
        "no search: {text}"
    );
}

/// The tables follow the `Variant` option: a folder of Dimy tables holds nothing for
/// Tsivy, and once the game is Dimy the engine reads them and plays from them. Telo, which
/// has no tables, reads nothing and keeps Dimy's for the way back; each switch between the
/// capture boards reads again.
#[test]
fn the_engine_reads_the_tables_of_the_variant_played() {
    let lines = engine_with_tables_in(
        tables_dir_on(Board::Dimy),
        &[
            "setoption name Variant value dimy",
            "setoption name Variant value telo",
            "setoption name Variant value dimy",
            "setoption name Variant value tsivy",
            "setoption name Variant value dimy",
            "position fen 5/5/2W2/5/4B w",
            "go depth 5",
        ],
    );
    let text = lines.join("\n");
    let reads: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string tablebase: "))
        .map(|l| {
            if l.starts_with("no tables in") {
                "none"
            } else {
                &l[..l.find(" layers").unwrap_or(0)]
            }
        })
        .collect();
    assert_eq!(reads, ["none", "6", "none", "6"], "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string tablebase: 6 layers, up to 4 stones")),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l == "info string tablebase win 1"),
        "{text}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove c3d2A", "{text}");
}

/// A Dimy layer file put where a Tsivy layer is expected is refused (by its size, and by
/// the board in its header where the sizes agree).
#[test]
fn a_table_of_another_board_is_refused() {
    let dir = temp_dir("other-board");
    build(&dir, 2, &rules_on(Board::Dimy), 1, Progress::Quiet).unwrap();
    for kind in [Kind::Wdl, Kind::Distance] {
        std::fs::rename(
            dir.join(table_file_name(Board::Dimy, kind, 1, 1)),
            dir.join(table_file_name(Board::Tsivy, kind, 1, 1)),
        )
        .unwrap();
    }
    let tables = Tablebase::open(&dir, Rules::default(), 2).unwrap();
    assert!(
        tables.layers().is_empty(),
        "a Dimy file is not a Tsivy table"
    );
    let error = tables.refused().join("; ");
    assert!(
        error.contains("wrong size") || error.contains("built for another board"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Searches `fen` to `depth` with one thread, with or without the tables.
fn search_with(fen: &str, depth: u32, tables: bool) -> vato::engine::search::Outcome {
    use std::sync::Arc;
    use vato::engine::search::{Limits, SearchRequest, Signals, search};
    let limits = Limits::to_depth(depth);
    let history = vec![vato::rules::fen::parse_position(fen).unwrap()];
    let tt = Arc::new(vato::engine::tt::TranspositionTable::new(4));
    let request = SearchRequest {
        tablebase: tables
            .then(|| Arc::new(Tablebase::open(tables_dir(), Rules::default(), 8).expect("tables"))),
        ..SearchRequest::new(history, limits, tt)
    };
    search(&request, &Signals::new(false), &mut |_| {})
}

/// Five stones, beyond the four-stone tables, but two plies from a capture into them: the
/// search sees the win through the tables (a tablebase score) where, at the same depth
/// without them, it only sees a material edge.
#[test]
fn the_search_probes_the_tables_below_the_root() {
    use vato::engine::search::TABLEBASE_WIN;
    let fen = "1W7/7W1/5B3/6W2/8B w";
    let with = search_with(fen, 4, true);
    assert!(with.score >= TABLEBASE_WIN - 100, "{with:?}");
    let without = search_with(fen, 4, false);
    assert!(without.score < 1_000, "{without:?}");
}

/// The engine, started with `--tablebase-path`, reports `tbhits` when its search probed the
/// tables, and plays the winning turn.
#[test]
fn the_engine_reports_tablebase_hits() {
    let lines = engine_with_tables(&["position fen 1W7/7W1/5B3/6W2/8B w", "go depth 4"]);
    let text = lines.join("\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string tablebase: 6 layers")),
        "{text}"
    );
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last_info.contains(" tbhits "), "{text}");
    assert_eq!(lines.last().unwrap(), "bestmove g2h2", "{text}");
}

/// The `cp` score of an `info depth` line.
fn centi_score(line: &str) -> i32 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "score").expect("a score");
    assert_eq!(words[at + 1], "cp", "{line}");
    words[at + 2].parse().expect("a whole number")
}

/// A table win found by the search is written as Stockfish writes one, `cp` 20000 less the
/// distance, in a session opened with `uci` or `ugi`; with no handshake (the Fanorona web
/// interface sends none, and its lowest levels read 9900 or more as a mate given as 10000
/// less the score) it is written from 9000 to 9899, so that every level shows the winner.
#[test]
fn table_wins_are_written_for_uci_and_for_the_web_interface() {
    let fen = "position fen 1W7/7W1/5B3/6W2/8B w";
    for (hello, low, high) in [
        (Some("uci"), 19_000, 20_000),
        (Some("ugi"), 19_000, 20_000),
        (None, 9_000, 9_899),
    ] {
        let mut commands: Vec<&str> = hello.into_iter().collect();
        commands.extend([fen, "go depth 4"]);
        let lines = engine_with_tables(&commands);
        let text = lines.join("\n");
        let last_info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .unwrap();
        let score = centi_score(last_info);
        assert!((low..=high).contains(&score), "{hello:?}: {score}: {text}");
        assert_eq!(lines.last().unwrap(), "bestmove g2h2", "{text}");
    }
    // The tables' own answer at the root, for the side that wins.
    for (hello, low, high) in [(Some("uci"), 19_000, 20_000), (None, 9_000, 9_899)] {
        let mut commands: Vec<&str> = hello.into_iter().collect();
        commands.extend(["position fen 9/9/2W3W2/9/4B4 w", "go depth 5"]);
        let lines = engine_with_tables(&commands);
        let text = lines.join("\n");
        let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
        let score = centi_score(info);
        assert!((low..=high).contains(&score), "{hello:?}: {score}: {text}");
    }
}

/// With `MultiPV` N in a position of the tables, the answer has N lines ranked by the
/// tables' values and distances, for a timed search and for `go infinite` alike.
#[test]
fn several_lines_are_given_from_the_tables_at_the_root() {
    // Two white stones far from the black one: quiet turns only, more than three.
    let position = "4B4/9/9/9/W7W w";
    let tables = vato::tablebase::Tablebase::open(tables_dir(), Rules::default(), 4).unwrap();
    let ranked = tables
        .probe_turns(&position.parse::<Position>().unwrap())
        .unwrap();
    assert!(ranked.len() >= 3, "{ranked:?}");
    let fen = format!("position fen {position}");
    for go in ["go depth 5", "go infinite"] {
        let mut commands = vec!["uci", "setoption name MultiPV value 3", &fen, go];
        if go == "go infinite" {
            commands.push("stop");
        }
        let lines = engine_with_tables(&commands);
        let text = lines.join("\n");
        let infos: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .collect();
        assert_eq!(infos.len(), 3, "{go}: {text}");
        let mut last = i32::MAX;
        for (index, info) in infos.iter().enumerate() {
            assert!(
                info.contains(&format!(" multipv {} ", index + 1)),
                "{go}: {text}"
            );
            let score = centi_score(info);
            assert!(score <= last, "ranked best first: {text}");
            last = score;
            let (turn, _) = &ranked[index];
            assert!(
                info.ends_with(&format!(" pv {turn}")),
                "{go}: {info} {ranked:?}"
            );
        }
        assert_eq!(lines.last().unwrap(), &format!("bestmove {}", ranked[0].0));
    }
}

/// Runs `vato` with `args` under a 2 GB address-space limit (a reader that runs away fails
/// rather than exhausting the machine), killing it after a minute so that a hang fails the
/// test instead of blocking it. Returns the exit status (`None` when it hung), standard
/// output and standard error.
fn vato_guarded(args: &[&str]) -> (Option<std::process::ExitStatus>, String, String) {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_vato"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vato starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        match child.try_wait().unwrap() {
            Some(status) => break Some(status),
            None if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            None => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, out, err)
}

/// A directory holding the two-stone layer as a FIFO, or as a link to an endless device,
/// gives a clear error at once from `probe`, `stats` and the `TablebasePath` option.
#[test]
fn special_files_named_like_layers_are_refused_not_read() {
    let name = table_file_name(Board::Tsivy, Kind::Wdl, 1, 1);
    let fifo = temp_dir("fifo");
    std::fs::create_dir_all(&fifo).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(fifo.join(&name))
        .status()
        .unwrap();
    assert!(made.success());
    let zero = temp_dir("zero");
    std::fs::create_dir_all(&zero).unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero.join(&name)).unwrap();
    for dir in [&fifo, &zero] {
        let dir = dir.to_str().unwrap();
        let (status, out, err) = vato_guarded(&["tablebase", "stats", "--dir", dir]);
        assert!(!status.expect("stats does not hang").success(), "{out}");
        assert!(err.contains("not a regular file"), "{err}");
        // The probe leaves the layer out and says why.
        let probe = [
            "tablebase",
            "probe",
            "--dir",
            dir,
            "--fen",
            "9/9/9/9/W1B6 w",
        ];
        let (status, out, err) = vato_guarded(&probe);
        assert!(status.expect("probe does not hang").success(), "{err}");
        assert!(out.contains("not a regular file"), "{out}");
        assert!(out.contains("not in the tables"), "{out}");
        let mut engine = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = engine.stdin.take().unwrap();
            writeln!(stdin, "setoption name TablebasePath value {dir}").unwrap();
            writeln!(stdin, "isready").unwrap();
        }
        let mut out = String::new();
        std::io::Read::read_to_string(&mut engine.stdout.take().unwrap(), &mut out).unwrap();
        engine.wait().unwrap();
        assert!(out.contains("not a regular file"), "{out}");
        assert!(out.ends_with("readyok\n"), "{out}");
    }
    std::fs::remove_dir_all(&fifo).unwrap();
    std::fs::remove_dir_all(&zero).unwrap();
}

#[test]
fn stats_of_a_missing_directory_is_an_error() {
    let (status, out, err) = vato_guarded(&["tablebase", "stats", "--dir", "/nonexistent/tables"]);
    assert!(!status.unwrap().success(), "{out}");
    assert!(err.contains("not a directory"), "{err}");
}

/// `stats` lists only the layers that exist, and its totals stop at the largest.
#[test]
fn stats_lists_only_the_layers_built() {
    let (status, out, err) = vato_guarded(&[
        "tablebase",
        "stats",
        "--dir",
        tables_dir().to_str().unwrap(),
    ]);
    assert!(status.unwrap().success(), "{err}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(rows.iter().any(|r| r.starts_with("| 4 |")), "{out}");
    for n in 5..=8 {
        assert!(
            !rows.iter().any(|r| r.starts_with(&format!("| {n} |"))),
            "{out}"
        );
    }
}

/// Every header byte counts: a changed no-capture limit, padding byte or longest distance
/// is damage, and the layer is left out with one line saying so. (A damaged block index
/// entry is found with its block.)
#[test]
fn header_fields_are_covered_by_the_checksum() {
    let rules = Rules::default();
    for offset in [18, 20, 48, 52] {
        let dir = temp_dir(&format!("header-{offset}"));
        build(&dir, 2, &rules, 1, Progress::Quiet).unwrap();
        let path = dir.join(table_file_name(Board::Tsivy, Kind::Distance, 1, 1));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[offset] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let tables = Tablebase::open(&dir, rules, 2).unwrap();
        assert!(
            tables.layers().is_empty(),
            "a changed byte {offset} is refused"
        );
        let refused = tables.refused().join("; ");
        assert!(refused.contains("checksum"), "{offset}: {refused}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A file cut short, a layer with one of its two files, a file of another version and a
/// folder of version 2 files: each refused with one line, the other layers still used.
#[test]
fn truncated_half_and_foreign_layers_are_refused_in_one_line() {
    let rules = Rules::default();
    let dir = temp_dir("foreign");
    build(&dir, 3, &rules, 1, Progress::Quiet).unwrap();
    let wdl = |a, b| dir.join(table_file_name(Board::Tsivy, Kind::Wdl, a, b));
    let distance = |a, b| dir.join(table_file_name(Board::Tsivy, Kind::Distance, a, b));
    // 2v1's values cut short; 1v2 without its distances; 1v1 of a later version.
    let bytes = std::fs::read(wdl(2, 1)).unwrap();
    std::fs::write(wdl(2, 1), &bytes[..bytes.len() - 5]).unwrap();
    std::fs::remove_file(distance(1, 2)).unwrap();
    let mut bytes = std::fs::read(wdl(1, 1)).unwrap();
    bytes[8] = 4;
    std::fs::write(wdl(1, 1), &bytes).unwrap();
    std::fs::write(dir.join(legacy_file_name(Board::Tsivy, 1, 2)), b"old").unwrap();
    let tables = Tablebase::open(&dir, rules, 3).unwrap();
    assert!(tables.layers().is_empty(), "{:?}", tables.layers());
    let refused = tables.refused();
    assert_eq!(refused.len(), 4, "{refused:?}");
    for (line, words) in refused.iter().zip([
        "format version 4",
        "truncated",
        "other file is missing",
        "version 2 files (1v2)",
    ]) {
        assert!(line.contains(words) && !line.contains('\n'), "{line}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The layer pairs of one stone count built separately (as on several machines) and
/// collected give the same files as one build; a pair whose smaller layers are absent is
/// refused; `stats` tells a complete set from an incomplete one.
#[test]
fn layer_pairs_built_apart_and_collected_equal_one_build() {
    let rules = Rules::default();
    let whole = temp_dir("layers-whole");
    build(&whole, 4, &rules, 2, Progress::Quiet).unwrap();

    let base = temp_dir("layers-base");
    let error = build_layers(
        &base,
        4,
        &rules,
        &BuildOptions::new(2, Progress::Quiet),
        Some(&[(3, 1)]),
    )
    .expect_err("the smaller layers are missing");
    assert!(format!("{error:#}").contains("missing: 1v1"), "{error:#}");
    build(&base, 3, &rules, 2, Progress::Quiet).unwrap();
    // Two "machines": copies of the three-stone set, one pair of four stones each.
    let mut collected = Vec::new();
    for (name, pair) in [("layers-a", (3, 1)), ("layers-b", (2, 2))] {
        let dir = temp_dir(name);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&base).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
        let report = build_layers(
            &dir,
            4,
            &rules,
            &BuildOptions::new(2, Progress::Quiet),
            Some(&[pair]),
        )
        .unwrap();
        let mut expected = vec![pair, (pair.1, pair.0)];
        expected.dedup();
        assert_eq!(report.solved, expected);
        collected.push(dir);
    }
    let stats = |dir: &PathBuf| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
            .args(["tablebase", "stats", "--dir"])
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let partial = stats(&collected[0]);
    assert!(
        partial.contains("incomplete: 1 of the layers up to 4 stones missing: 2v2"),
        "{partial}"
    );
    // Collect the pairs into the first directory: the same files as the single build.
    for kind in [Kind::Wdl, Kind::Distance] {
        let name = table_file_name(Board::Tsivy, kind, 2, 2);
        std::fs::copy(collected[1].join(&name), collected[0].join(&name)).unwrap();
    }
    for n in 2..=4 {
        for (a, b) in layers_with(n) {
            for kind in [Kind::Wdl, Kind::Distance] {
                let name = table_file_name(Board::Tsivy, kind, a, b);
                assert_eq!(
                    std::fs::read(whole.join(&name)).unwrap(),
                    std::fs::read(collected[0].join(&name)).unwrap(),
                    "{name}"
                );
            }
        }
    }
    let complete = stats(&collected[0]);
    assert!(
        complete.contains("complete: every layer of up to 4 stones"),
        "{complete}"
    );
    assert!(
        Tablebase::open(&collected[0], rules, 4)
            .unwrap()
            .missing()
            .is_empty()
    );
}

/// Runs the engine with no `--tablebase-path`, its environment changed by `envs` (the
/// variables of the default folder removed first), sends `commands`, and returns its
/// whole output.
fn engine_with_env(envs: &[(&str, &std::path::Path)], commands: &[&str]) -> Vec<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_vato"));
    command
        .env_remove("VATO_TABLEBASES")
        .env_remove("XDG_DATA_HOME")
        .env_remove("HOME");
    for (key, value) in envs {
        command.env(key, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("piped");
    for line in commands {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// Without `TablebasePath`, the engine finds the tables in `$VATO_TABLEBASES`, else in the
/// user's data folder, says so once after the banner, and plays from them; an empty
/// `TablebasePath` switches them off; nothing is said when there are none.
#[test]
fn the_engine_finds_the_tables_in_the_default_folder() {
    let home = temp_dir("home");
    let data = home.join(".local/share/vato/tablebases");
    build(&data, 3, &Rules::default(), 2, Progress::Quiet).unwrap();
    let xdg = temp_dir("xdg");
    build(
        &xdg.join("vato/tablebases"),
        2,
        &Rules::default(),
        2,
        Progress::Quiet,
    )
    .unwrap();
    // White c3 and g3 against black e1: c3d2A takes the last black stone.
    let play = ["position fen 9/9/2W3W2/9/4B4 w", "go depth 5"];
    for (envs, stones, dir) in [
        (
            vec![("VATO_TABLEBASES", tables_dir().as_path())],
            4,
            tables_dir().clone(),
        ),
        (vec![("HOME", home.as_path())], 3, data.clone()),
        (
            vec![("HOME", home.as_path()), ("XDG_DATA_HOME", xdg.as_path())],
            2,
            xdg.join("vato/tablebases"),
        ),
    ] {
        let lines = engine_with_env(&envs, &play);
        let text = lines.join("\n");
        let said = format!(
            "info string tablebase: {} layers, up to {stones} stones, in '{}', opened in ",
            stones * (stones - 1) / 2,
            dir.display()
        );
        assert!(lines[1].starts_with(&said), "{said}\n{text}");
        assert_eq!(lines.last().unwrap(), "bestmove c3d2A", "{text}");
        if stones >= 3 {
            assert!(
                lines.iter().any(|l| l == "info string tablebase win 1"),
                "{text}"
            );
        }
    }
    // Switched off by an empty path: the engine searches.
    let envs = [("VATO_TABLEBASES", tables_dir().as_path())];
    let off = engine_with_env(
        &envs,
        &["setoption name TablebasePath value", play[0], play[1]],
    );
    assert!(
        off.iter().all(|l| l != "info string tablebase win 1"),
        "{off:?}"
    );
    assert!(off.iter().any(|l| l.starts_with("info depth 2")), "{off:?}");
    // Nothing there, nothing said; the option's default names the default folder.
    let empty = temp_dir("no-tables");
    std::fs::create_dir_all(&empty).unwrap();
    let lines = engine_with_env(&[("VATO_TABLEBASES", empty.as_path())], &["uci", "quit"]);
    assert!(lines.iter().all(|l| !l.contains("tablebase:")), "{lines:?}");
    assert!(
        lines.contains(&"option name TablebasePath type string default <default>".to_string()),
        "{lines:?}"
    );
    // `vato tablebase build` without --dir writes into the default folder.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
        .args(["tablebase", "build", "--stones", "2"])
        .env("VATO_TABLEBASES", &empty)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        empty
            .join(table_file_name(Board::Tsivy, Kind::Wdl, 1, 1))
            .is_file()
    );
    for dir in [home, xdg, empty] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Flips one byte of every block of `path` (a version 3 file), past its header and index.
fn damage_every_block(path: &std::path::Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let field = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let blocks = field(40) as usize;
    let data_at = 64 + 16 * blocks;
    let starts: Vec<usize> = (0..blocks)
        .map(|k| {
            if k == 0 {
                0
            } else {
                field(64 + 16 * (k - 1)) as usize
            }
        })
        .collect();
    for start in starts {
        bytes[data_at + start] ^= 0x10;
    }
    std::fs::write(path, &bytes).unwrap();
}

/// A damaged block met while the engine plays is said once, before the `bestmove` of that
/// search, and the engine goes on without the layer.
#[test]
fn the_engine_says_a_damaged_block_once_and_plays_on() {
    let dir = temp_dir("damaged-engine");
    build(&dir, 3, &Rules::default(), 2, Progress::Quiet).unwrap();
    damage_every_block(&dir.join(table_file_name(Board::Tsivy, Kind::Wdl, 1, 2)));
    // White a1, b1 against e5: every turn leads into the damaged 1v2 layer.
    let lines = engine_with_tables_in(&dir, &["position fen 4B4/9/9/9/WW7 w", "go depth 3"]);
    let text = lines.join("\n");
    let faults: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string tablebase: ") && l.contains("fails its checksum"))
        .collect();
    assert_eq!(faults.len(), 1, "{text}");
    assert!(faults[0].ends_with("layer 1v2 is no longer used"), "{text}");
    assert!(lines.last().unwrap().starts_with("bestmove "), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 3")),
        "searched: {text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bench --compare` searches the positions without the tables and with them each round:
/// the rounds without them count bench's own nodes, and the last line gives the medians.
#[test]
fn bench_compares_the_search_with_and_without_the_tables() {
    let dir = tables_dir().to_str().unwrap();
    let (status, plain, err) = vato_guarded(&["bench", "--depth", "3"]);
    assert!(status.unwrap().success(), "{err}");
    let signature = plain.lines().last().unwrap().split(' ').next().unwrap();
    let (status, out, err) =
        vato_guarded(&["bench", "--depth", "3", "--tables", dir, "--compare", "2"]);
    assert!(status.unwrap().success(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for (round, line) in lines[..2].iter().enumerate() {
        let start = format!("round {}: without tables {signature} nodes ", round + 1);
        assert!(line.starts_with(&start), "{line}");
        assert!(line.contains(", with tables "), "{line}");
    }
    assert!(lines[2].starts_with("median nps: without tables "), "{out}");
    assert!(lines[2].contains("first round "), "{out}");
    let (status, _, err) = vato_guarded(&["bench", "--compare", "2"]);
    assert!(!status.unwrap().success());
    assert!(err.contains("--tables"), "{err}");
}

/// Sets entry `entry` of a version 3 value file to code 3, which no writer produces, and
/// gives its block a checksum that matches: damage that only decoding every entry finds.
fn forge_value_code_3(path: &std::path::Path, entry: u64) {
    let bytes = std::fs::read(path).unwrap();
    let field = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let (entries, blocks) = (field(24), field(40) as usize);
    let block_entries = vato::tablebase::BLOCK_ENTRIES as u64;
    let data_at = 64 + 16 * blocks;
    let mut block_bytes: Vec<Vec<u8>> = (0..blocks)
        .map(|k| {
            let start = if k == 0 { 0 } else { field(64 + 16 * (k - 1)) };
            let end = field(64 + 16 * k);
            bytes[data_at + start as usize..data_at + end as usize].to_vec()
        })
        .collect();
    let block = (entry / block_entries) as usize;
    let in_block = (entries - block as u64 * block_entries).min(block_entries);
    let mut decoded = lz4_flex::decompress(&block_bytes[block], in_block.div_ceil(4) as usize)
        .expect("a value block decodes");
    let offset = (entry % block_entries) as usize;
    decoded[offset / 4] |= 3 << (2 * (offset % 4));
    block_bytes[block] = lz4_flex::compress(&decoded);
    let mut out = bytes[..64].to_vec();
    let mut end = 0u64;
    for b in &block_bytes {
        end += b.len() as u64;
        out.extend_from_slice(&end.to_le_bytes());
        out.extend_from_slice(&vato::safe_file::checksum(b).to_le_bytes());
    }
    for b in &block_bytes {
        out.extend_from_slice(b);
    }
    std::fs::write(path, out).unwrap();
}

/// `vato tablebase verify` decodes every entry: a value code 3 under a right checksum is
/// named with its layer, block and entry, as a probe would refuse it.
#[test]
fn verify_finds_a_value_no_writer_produces() {
    let dir = temp_dir("forged");
    build(&dir, 3, &Rules::default(), 2, Progress::Quiet).unwrap();
    let verify = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vato"))
            .args(["tablebase", "verify"])
            .arg(&dir)
            .output()
            .expect("vato runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let (ok, text) = verify();
    assert!(
        ok && text.contains("every block and entry verified"),
        "{text}"
    );
    let entry = 40_503;
    forge_value_code_3(
        &dir.join(table_file_name(Board::Tsivy, Kind::Wdl, 2, 1)),
        entry,
    );
    let (ok, text) = verify();
    assert!(!ok, "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("damaged: "))
        .unwrap_or("");
    assert!(
        line.starts_with("damaged: layer 2v1: ")
            && line.ends_with(&format!("block 4, entry {entry} holds 3, no value")),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("damaged: ")).count(),
        1
    );
}
