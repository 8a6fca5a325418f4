//! The search through its public interface: forced wins, legal answers everywhere,
//! exact and repeatable limits.

mod common;

use std::sync::Arc;
use vato::engine::search::{Limits, Outcome, Report, Score, SearchRequest, Signals, search};
use vato::engine::tt::TranspositionTable;
use vato::rules::Rules;
use vato::rules::fen::parse_position;
use vato::rules::game::{Status, WinReason, status};
use vato::rules::movegen::legal_turns;
use vato::rules::notation::spell_turn;
use vato::rules::position::Position;

fn request(history: Vec<Position>, limits: Limits) -> SearchRequest {
    SearchRequest::new(history, limits, Arc::new(TranspositionTable::new(4)))
}

fn run(position: Position, limits: Limits) -> (Outcome, Vec<Report>) {
    let mut reports = Vec::new();
    let outcome = search(
        &request(vec![position], limits),
        &Signals::new(false),
        &mut |r| reports.push(r),
    );
    (outcome, reports)
}

fn depth(n: u32) -> Limits {
    Limits::to_depth(n)
}

fn best_spelling(fen: &str, limits: Limits) -> (String, Score) {
    let p = parse_position(fen).unwrap();
    let (outcome, reports) = run(p, limits);
    let best = outcome.best.expect("a legal turn exists");
    (
        spell_turn(&p, Rules::default().chain_rule, best),
        reports.last().expect("at least one report").score,
    )
}

#[test]
fn one_chain_takes_everything() {
    // a1b1A removes the whole run c1..i1: Black has no stone left.
    assert_eq!(
        best_spelling("9/9/9/9/W1BBBBBBB w", depth(3)),
        ("a1b1A".to_string(), Score::Mate(1))
    );
}

#[test]
fn a_two_turn_combination() {
    // A quiet first turn that leaves every black reply losing the last stone.
    let (turn, score) = best_spelling("8W/2W6/9/9/3B5 w", depth(5));
    assert_eq!(score, Score::Mate(2));
    assert_eq!(turn, "c4c3");
}

#[test]
fn a_threat_that_cannot_be_parried_is_seen_past_the_horizon() {
    // h3h2 attacks the black stone on i2 (h2g2W takes it by withdrawal) and no black
    // paika saves a stone, which a depth-7 search confirms. At depth 1 only the threat
    // search past the horizon sees it; without that search Black's reply is scored as it
    // stands, the threat counted as a small penalty.
    let fen = "9/1W4B2/7W1/4W3B/5B3 w";
    let position = parse_position(fen).unwrap();
    let depth_one = |threat_quiescence| {
        let mut request = request(vec![position], depth(1));
        request.config.threat_quiescence = threat_quiescence;
        search(&request, &Signals::new(false), &mut |_| {})
    };
    let with = depth_one(true);
    let without = depth_one(false);
    let spell = |outcome: &Outcome| {
        spell_turn(
            &position,
            Rules::default().chain_rule,
            outcome.best.unwrap(),
        )
    };
    assert_eq!(spell(&with), "h3h2");
    assert!(with.score >= 80, "a stone is won: {}", with.score);
    assert!(without.score < 80, "static score: {}", without.score);
    assert_eq!(best_spelling(fen, depth(7)).0, "h3h2");
}

#[test]
fn blocking_the_last_stone_wins() {
    // g3h4 walls in the black stone on i4 (a weak point with three lines), which then
    // has no legal turn.
    let fen = "8W/8B/6W1W/8W/9 w";
    let (turn, score) = best_spelling(fen, depth(3));
    assert_eq!((turn.as_str(), score), ("g3h4", Score::Mate(1)));
    let p = parse_position(fen).unwrap();
    let after = p.play(run(p, depth(3)).0.best.unwrap());
    assert!(matches!(
        status(&[after], &Rules::default()),
        Status::Won {
            reason: WinReason::NoLegalTurn,
            ..
        }
    ));
}

#[test]
fn a_blocked_side_has_nothing_to_play() {
    // The position after g3h4 above: Black to move, walled in.
    let p = parse_position("8W/7WB/8W/8W/9 b").unwrap();
    assert!(legal_turns(&p, Rules::default().chain_rule).is_empty());
    let (outcome, reports) = run(p, depth(3));
    assert_eq!(outcome.best, None);
    assert!(reports.is_empty());
}

fn playout_positions(seed: u64, length: usize) -> Vec<Position> {
    common::playout(seed, length, Rules::default().chain_rule)
}

#[test]
fn every_answer_is_legal_at_every_depth_and_node_limit() {
    for seed in 1..=4 {
        for p in playout_positions(seed, 60).into_iter().step_by(3) {
            let legal = legal_turns(&p, Rules::default().chain_rule);
            let limits = [
                depth(1),
                depth(2),
                depth(3),
                Limits {
                    nodes: Some(1),
                    ..Limits::default()
                },
                Limits {
                    nodes: Some(300),
                    ..Limits::default()
                },
            ];
            for limit in limits {
                let (outcome, _) = run(p, limit.clone());
                match outcome.best {
                    Some(turn) => assert!(legal.contains(&turn), "{p} {limit:?}"),
                    None => assert!(legal.is_empty(), "{p}"),
                }
            }
        }
    }
}

#[test]
fn node_limits_are_exact_and_searches_repeat() {
    let p = playout_positions(7, 12)[12];
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let (first, reports) = run(p, limits.clone());
    let (second, _) = run(p, limits);
    assert_eq!(first, second);
    assert!(first.nodes <= 20_000);
    assert!(reports.iter().all(|r| r.nodes <= 20_000));
    let (a, _) = run(p, depth(4));
    let (b, _) = run(p, depth(4));
    assert_eq!(a, b);
    assert_eq!(a.depth, 4);
}

#[test]
fn repetition_counts_as_a_draw() {
    // With the history given, the search sees the draw in the line that repeats.
    let mut reports = Vec::new();
    let outcome = search(
        &request(repeating_history(), depth(1)),
        &Signals::new(false),
        &mut |r| reports.push(r),
    );
    assert!(outcome.best.is_some());
    // One stone each: the repetition scores 0 and so does Black's best other turn (the
    // draw's own value is checked by giving it another, with contempt, below).
    assert_eq!(reports.last().unwrap().score, Score::Centi(0));
}

/// Seven turns from "9/9/4W4/9/B8 w" with the positions before them: Black to move, and
/// a2a1 repeats the start position a third time.
fn repeating_history() -> Vec<Position> {
    let mut p = parse_position("9/9/4W4/9/B8 w").unwrap();
    let mut history = vec![p];
    for text in ["e3e4", "a1a2", "e4e3", "a2a1", "e3e4", "a1a2", "e4e3"] {
        let turn =
            vato::rules::notation::parse_turn(&p, vato::rules::ChainRule::Optional, text).unwrap();
        p = p.play(turn);
        history.push(p);
    }
    history
}

#[test]
fn contempt_makes_a_draw_worth_less_to_the_side_searching() {
    let searched = |contempt: i32| {
        let history = repeating_history();
        let before = *history.last().unwrap();
        let mut req = request(history, depth(1));
        req.config.contempt = contempt;
        let mut reports = Vec::new();
        let outcome = search(&req, &Signals::new(false), &mut |r| reports.push(r));
        let best = spell_turn(&before, Rules::default().chain_rule, outcome.best.unwrap());
        (best, reports.last().unwrap().score)
    };
    // Black's other turns score about 0: a draw worth +50 is taken, one worth -50 is not.
    assert_eq!(searched(-50), ("a2a1".to_string(), Score::Centi(50)));
    let (best, score) = searched(50);
    assert_ne!(best, "a2a1");
    assert!(matches!(score, Score::Centi(s) if s > -50), "{score:?}");
}

#[test]
fn multipv_reports_distinct_lines_in_order() {
    let mut req = request(vec![Position::start()], depth(2));
    req.multipv = 3;
    let mut reports = Vec::new();
    search(&req, &Signals::new(false), &mut |r| reports.push(r));
    let last: Vec<&Report> = reports.iter().filter(|r| r.depth == 2).collect();
    assert_eq!(
        last.iter().map(|r| r.multipv).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let firsts: Vec<_> = last.iter().map(|r| r.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
}

#[test]
fn multipv_lines_come_best_first_and_the_best_is_played() {
    // After d3e3A, a later line used to outscore the first at depth 8 (each line has its
    // own aspiration window), and the first line's worse turn was the one played.
    let start = Position::start();
    let d3e3a = legal_turns(&start, Rules::default().chain_rule)
        .into_iter()
        .find(|&t| spell_turn(&start, Rules::default().chain_rule, t) == "d3e3A")
        .unwrap();
    let position = start.play(d3e3a);
    for depth_limit in [6, 7, 8] {
        let mut req = request(vec![position], depth(depth_limit));
        req.multipv = 4;
        let mut reports = Vec::new();
        let outcome = search(&req, &Signals::new(false), &mut |r| reports.push(r));
        for d in 1..=depth_limit {
            let scores: Vec<Score> = reports
                .iter()
                .filter(|r| r.depth == d)
                .map(|r| r.score)
                .collect();
            let centi: Vec<i32> = scores
                .iter()
                .map(|s| match s {
                    Score::Centi(cp) => *cp,
                    Score::Mate(n) => n.signum() * (100_000 - n.abs()),
                })
                .collect();
            assert!(
                centi.windows(2).all(|w| w[0] >= w[1]),
                "depth {d} of {depth_limit}: {scores:?}"
            );
        }
        let last = reports.iter().rfind(|r| r.multipv == 1).unwrap();
        assert_eq!(outcome.best, Some(last.pv[0]));
    }
}

#[test]
fn two_threads_return_a_legal_turn() {
    let mut req = request(vec![Position::start()], depth(4));
    req.threads = 2;
    let outcome = search(&req, &Signals::new(false), &mut |_| {});
    let legal = legal_turns(&Position::start(), Rules::default().chain_rule);
    assert!(legal.contains(&outcome.best.unwrap()));
}

#[test]
fn greedy_plies_follow_the_greediest_capture_past_the_capture_plies() {
    // With one capture searched per ply past the first, g greedy plies after p capture
    // plies make the same tree as p + g capture plies: same nodes, same scores.
    let searched = |plies: u32, greedy: u32, p: Position| {
        let mut req = request(vec![p], depth(3));
        req.config.quiescence_width = 1;
        req.config.quiescence_plies = plies;
        req.config.quiescence_greedy_plies = greedy;
        let outcome = search(&req, &Signals::new(false), &mut |_| {});
        (outcome.nodes, outcome.score, outcome.best)
    };
    let mut longer = 0;
    for seed in 1..=3 {
        for p in playout_positions(seed, 40).into_iter().step_by(4) {
            let greedy = searched(1, 3, p);
            assert_eq!(greedy, searched(4, 0, p), "{p}");
            if greedy.0 > searched(1, 0, p).0 {
                longer += 1;
            }
        }
    }
    assert!(longer > 0, "the greedy plies never searched further");
}
