//! Building a book: the opening tree explored breadth first from a root, each position
//! searched with several lines to a fixed depth.
//!
//! Which positions enter the book: the root, with every turn its search listed; after
//! each turn the book would play (one within `margin` of the best), every turn the search
//! listed in the position it leads to, so that the book also knows how to answer bad
//! replies; after any other turn, the turns within the margin only. All this up to
//! `plies` turns from the root. Positions in the endgame tables are not entered.
//!
//! The result does not depend on the order of the work: each search starts from an empty
//! table on one thread, so a position's lines are the same whoever searches it and when,
//! and a position reached along several paths is expanded as the most generous of them
//! asks. That is what lets a build resume from its journal, and shards (which split the
//! root's turns) add up to the whole build.

use super::contents::{BookContents, BookRules, BookTurn, MAX_BOOK_SCORE, sort_turns};
use super::journal::{Journal, Searched};
use crate::engine::nnue::network::Network;
use crate::engine::search::{Limits, Report, Score, SearchRequest, Signals, search};
use crate::engine::tt::TranspositionTable;
use crate::rules::Rules;
use crate::rules::notation::{parse_turn, spell_turn};
use crate::rules::position::Position;
use crate::shard::Shard;
use crate::tablebase::Tablebase;
use anyhow::Result;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How a book is built.
#[derive(Clone)]
pub struct BuildSettings {
    /// The position the book starts from.
    pub root: Position,
    /// The rules of the game.
    pub rules: Rules,
    /// Depth of every search.
    pub depth: u8,
    /// Lines (MultiPV) of every search.
    pub lines: u8,
    /// Turns scoring at most this many centi-stones below the best are played.
    pub margin: i16,
    /// Turns from the root that the book covers.
    pub plies: u32,
    /// At most this many positions are searched (journal included); `None`: no limit.
    pub max_positions: Option<usize>,
    /// Searches run side by side.
    pub threads: usize,
    /// The part of the root's turns this build expands.
    pub shard: Shard,
    /// Transposition table of each search, in MiB.
    pub hash_mb: usize,
    /// The evaluation network; the hand-written evaluation when `None`.
    pub network: Option<Arc<Network>>,
    /// Endgame tables: positions in them are not entered, and the searches probe them.
    pub tablebase: Option<Arc<Tablebase>>,
}

/// What a build did.
pub struct Built {
    /// The book.
    pub contents: BookContents,
    /// Positions searched by this run.
    pub searched: usize,
    /// Positions whose search came from the journal.
    pub reused: usize,
    /// True when the build stopped early (the stop flag or the positions limit).
    pub cut_short: bool,
}

/// A position to enter, with what it may still expand.
#[derive(Clone, Copy)]
struct Visit {
    position: Position,
    /// Turns left to the book's last ply, this position's own included (at least 1).
    plies_left: u32,
    /// Reached by a turn the book plays: every listed turn is expanded, not only the
    /// turns within the margin.
    every_line: bool,
}

/// The most generous visits a position has had: plies left when every line was expanded
/// and when only the margin's turns were (0: never).
#[derive(Clone, Copy, Default)]
struct Reach {
    every_line: u32,
    margin_only: u32,
}

impl Reach {
    /// Records `visit`; false when an earlier visit already expanded at least as much.
    fn improve(&mut self, visit: &Visit) -> bool {
        if visit.every_line {
            if self.every_line >= visit.plies_left {
                return false;
            }
            self.every_line = visit.plies_left;
        } else {
            if self.every_line.max(self.margin_only) >= visit.plies_left {
                return false;
            }
            self.margin_only = visit.plies_left;
        }
        true
    }
}

/// Builds the book, reusing the searches in `done` and appending each new one to
/// `journal`. `progress` hears (positions searched or reused, positions waiting) after
/// each search; `stop` ends the build after the searches under way.
pub fn build(
    settings: &BuildSettings,
    mut done: HashMap<u64, Searched>,
    journal: &mut Journal,
    stop: &AtomicBool,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> Result<Built> {
    let rules = settings.rules;
    let mut reach: HashMap<u64, Reach> = HashMap::new();
    let mut entered: Vec<u64> = Vec::new();
    let mut level = vec![Visit {
        position: settings.root,
        plies_left: settings.plies,
        every_line: true,
    }];
    let mut searched = 0;
    let mut cut_short = false;
    let mut is_root = true;
    while !level.is_empty() && !cut_short {
        let visits: Vec<Visit> = level
            .into_iter()
            .filter(|visit| visit.plies_left > 0 && !in_tables(settings, &visit.position))
            .filter(|visit| {
                let entry = reach.entry(visit.position.key()).or_default();
                let first = entry.every_line == 0 && entry.margin_only == 0;
                let improved = entry.improve(visit);
                if first && improved {
                    entered.push(visit.position.key());
                }
                improved
            })
            .collect();
        // The positions of this level not searched yet, each once, in a fixed order.
        let mut seen = HashSet::new();
        let mut wanted: Vec<Position> = visits
            .iter()
            .map(|visit| visit.position)
            .filter(|p| !done.contains_key(&p.key()) && seen.insert(p.key()))
            .collect();
        if let Some(limit) = settings.max_positions {
            let room = limit.saturating_sub(done.len());
            if wanted.len() > room {
                wanted.truncate(room);
                cut_short = true;
            }
        }
        let found = search_all(settings, &wanted, journal, stop, &mut |finished| {
            progress(done.len() + finished, wanted.len() - finished)
        })?;
        searched += found.len();
        if found.len() < wanted.len() {
            cut_short = true;
        }
        done.extend(found);
        let mut next = Vec::new();
        for visit in &visits {
            let Some(result) = done.get(&visit.position.key()) else {
                continue;
            };
            let best = result.lines.first().map_or(0, |line| line.1);
            for (index, (text, score)) in result.lines.iter().enumerate() {
                let in_margin = *score >= best.saturating_sub(settings.margin);
                if !(in_margin || visit.every_line) {
                    continue;
                }
                if is_root && !settings.shard.contains(index as u64) {
                    continue;
                }
                if let Ok(turn) = parse_turn(&visit.position, rules.turn_rules(), text) {
                    next.push(Visit {
                        position: visit.position.play(turn),
                        plies_left: visit.plies_left - 1,
                        every_line: in_margin,
                    });
                }
            }
        }
        is_root = false;
        level = next;
    }
    let mut contents = BookContents::new(BookRules::of(&rules));
    for key in entered {
        if let Some(result) = done.get(&key) {
            contents.add(key, book_turns(result, settings.margin));
        }
    }
    let reused = contents.positions.len().saturating_sub(searched);
    Ok(Built {
        contents,
        searched,
        reused,
        cut_short: cut_short || stop.load(Ordering::SeqCst),
    })
}

fn in_tables(settings: &BuildSettings, position: &Position) -> bool {
    settings
        .tablebase
        .as_ref()
        .is_some_and(|tables| tables.probe_outcome(position).is_some())
}

/// A searched position's turns as the book offers them: those within the margin weighted
/// from 100 (the best) down to 1 (the margin's edge), the others listed with weight 0.
pub fn book_turns(result: &Searched, margin: i16) -> Vec<BookTurn> {
    let best = result.lines.first().map_or(0, |line| i32::from(line.1));
    let margin = i32::from(margin.max(0));
    let mut turns: Vec<BookTurn> = result
        .lines
        .iter()
        .map(|(turn, score)| {
            let behind = best - i32::from(*score);
            let weight = if behind > margin {
                0
            } else if margin == 0 {
                100
            } else {
                1 + (margin - behind) * 99 / margin
            };
            BookTurn {
                turn: turn.clone(),
                weight: weight as u16,
                score: *score,
                depth: result.depth,
            }
        })
        .collect();
    sort_turns(&mut turns);
    turns
}

/// Searches `positions` on `settings.threads` threads, journaling each result as it
/// comes; returns the results by key. Positions not started when `stop` is set are left.
fn search_all(
    settings: &BuildSettings,
    positions: &[Position],
    journal: &mut Journal,
    stop: &AtomicBool,
    progress: &mut (dyn FnMut(usize) + Send),
) -> Result<HashMap<u64, Searched>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<(HashMap<u64, Searched>, Option<anyhow::Error>)> =
        Mutex::new((HashMap::new(), None));
    let journal = Mutex::new(journal);
    let progress = Mutex::new(progress);
    std::thread::scope(|scope| {
        for _ in 0..settings.threads.max(1) {
            scope.spawn(|| {
                loop {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let at = next.fetch_add(1, Ordering::SeqCst);
                    let Some(position) = positions.get(at) else {
                        break;
                    };
                    let result = search_position(settings, position);
                    let written = journal
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .append(position, &result);
                    let mut held = results.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(e) = written {
                        held.1.get_or_insert(e);
                        stop.store(true, Ordering::SeqCst);
                        break;
                    }
                    held.0.insert(position.key(), result);
                    let finished = held.0.len();
                    drop(held);
                    (progress.lock().unwrap_or_else(|e| e.into_inner()))(finished);
                }
            });
        }
    });
    let (found, error) = results.into_inner().unwrap_or_else(|e| e.into_inner());
    match error {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// One position's search: `settings.lines` lines to `settings.depth`, on one thread and
/// from an empty table, so that it finds the same lines every time.
pub fn search_position(settings: &BuildSettings, position: &Position) -> Searched {
    let tt = Arc::new(TranspositionTable::new(settings.hash_mb.max(1)));
    let mut request = SearchRequest::new(
        vec![*position],
        Limits::to_depth(u32::from(settings.depth)),
        tt,
    );
    request.rules = settings.rules;
    request.multipv = usize::from(settings.lines.max(1));
    request.network = settings.network.clone();
    request.tablebase = settings.tablebase.clone();
    let mut last: Vec<Report> = Vec::new();
    search(&request, &Signals::new(false), &mut |report| {
        if last
            .first()
            .is_some_and(|first| first.depth != report.depth)
        {
            last.clear();
        }
        last.push(report);
    });
    let turn_rules = settings.rules.turn_rules();
    let lines = last
        .iter()
        .filter_map(|report| {
            let turn = *report.pv.first()?;
            Some((
                spell_turn(position, turn_rules, turn),
                book_score(report.score),
            ))
        })
        .collect();
    // The depth asked for, even when a decided score ended the search sooner: the
    // journal recognises its searches by it.
    Searched {
        depth: settings.depth,
        lines_asked: settings.lines,
        lines,
    }
}

/// A search score as a book score: centi-stones, or a win or loss in `n` turns as
/// [`MAX_BOOK_SCORE`] less `n`.
fn book_score(score: Score) -> i16 {
    let decided = i32::from(MAX_BOOK_SCORE);
    match score {
        Score::Centi(cp) => cp.clamp(-(decided - 1000), decided - 1000) as i16,
        Score::Mate(n) if n > 0 => (decided - n.min(999)) as i16,
        Score::Mate(n) => (-decided + (-n).min(999)) as i16,
    }
}
