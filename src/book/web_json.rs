//! The opening base of the Fanorona web interface: the JSON file (`tools/gui/book.json`
//! beside its server) that its Openings panel and opening lessons read. One object:
//! `net`, `positions` and `games` (which the panel shows as the base's description), and
//! `nodes`, a map from the turns played from the start, joined by spaces (`""` for the
//! start), to `{"d": depth, "l": lines}`; each line is `[turn, score, principal
//! variation]`, best first, the score in centi-stones for the side playing the turn as
//! `info score cp` gives it, a win or loss in `n` turns as ±(30000 − n). A turn whose
//! value the proof store settles has a fourth element, what it is proven to be for the
//! side playing it: `"win"`, `"loss"`, `"draw"`, `"draw or better"` or `"draw or worse"`.

use super::contents::{BookContents, BookTurn};
use crate::rules::notation::parse_turn;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::rules::{Rules, TurnRules};
use serde_json::{Map, Value, json};
use std::collections::{HashSet, VecDeque};

/// The longest principal variation written: the turn and the book's best turns after it.
const PV_TURNS: usize = 12;

/// The book as the web interface's opening base, with what was written.
#[derive(Debug)]
pub struct WebBase {
    /// The JSON text.
    pub json: String,
    /// Paths from the start written as nodes (a position reached along two paths is
    /// written under each).
    pub nodes: usize,
    /// Distinct positions among them.
    pub positions: usize,
    /// Positions of the book that no path of book turns from the start reaches.
    pub unreachable: usize,
}

/// Writes `contents` as the web interface's opening base. The interface looks a position
/// up by the turns played to it, so every path of book turns from the start gets its node,
/// a transposition one node per path; a path that comes back to a position already on it
/// stops there. `net` names what the book was searched with; `proven` says what a turn
/// from a position is proven to be for the side playing it, when that is known.
pub fn write_web_json(
    contents: &BookContents,
    net: &str,
    proven: impl Fn(&Position, Turn) -> Option<String>,
) -> WebBase {
    let rules = contents.rules.rules();
    let turn_rules = rules.turn_rules();
    let mut nodes = Map::new();
    let mut seen = HashSet::new();
    let start = rules.start();
    let mut queue = VecDeque::from([(start, Vec::<String>::new(), vec![start.key()])]);
    while let Some((position, path, keys)) = queue.pop_front() {
        let Some(turns) = contents.positions.get(&position.key()) else {
            continue;
        };
        seen.insert(position.key());
        let mut best_first: Vec<&BookTurn> = turns.iter().collect();
        best_first.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then(b.weight.cmp(&a.weight))
                .then(a.turn.cmp(&b.turn))
        });
        let mut lines = Vec::new();
        for book_turn in best_first {
            let Ok(turn) = parse_turn(&position, turn_rules, &book_turn.turn) else {
                continue;
            };
            let next = position.play(turn);
            let pv = principal_variation(contents, &rules, &book_turn.turn, next, &keys);
            let mut line = vec![json!(book_turn.turn), json!(book_turn.score), json!(pv)];
            line.extend(proven(&position, turn).map(Value::from));
            lines.push(Value::Array(line));
            if !keys.contains(&next.key()) {
                let mut next_path = path.clone();
                next_path.push(book_turn.turn.clone());
                let mut next_keys = keys.clone();
                next_keys.push(next.key());
                queue.push_back((next, next_path, next_keys));
            }
        }
        let depth = turns.iter().map(|t| t.depth).max().unwrap_or(0);
        nodes.insert(path.join(" "), json!({"d": depth, "l": lines}));
    }
    let node_count = nodes.len();
    let base = json!({
        "net": net,
        "positions": seen.len(),
        "games": "built by vato book build: no games, deep searches of the opening tree",
        "nodes": Value::Object(nodes),
    });
    WebBase {
        json: base.to_string() + "\n",
        nodes: node_count,
        positions: seen.len(),
        unreachable: contents.positions.len() - seen.len(),
    }
}

/// `first`, then the book's first-offered turn of each position after it, while the book
/// has the position and it has not come up before on the way.
fn principal_variation(
    contents: &BookContents,
    rules: &Rules,
    first: &str,
    mut position: Position,
    before: &[u64],
) -> String {
    let turn_rules: TurnRules = rules.turn_rules();
    let mut pv = vec![first.to_string()];
    let mut met: HashSet<u64> = before.iter().copied().collect();
    while pv.len() < PV_TURNS && met.insert(position.key()) {
        let Some(best) = contents
            .positions
            .get(&position.key())
            .and_then(|turns| turns.first())
        else {
            break;
        };
        let Ok(turn) = parse_turn(&position, turn_rules, &best.turn) else {
            break;
        };
        pv.push(best.turn.clone());
        position = position.play(turn);
    }
    pv.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::contents::BookRules;
    use crate::book::text::read_text;

    fn base() -> Value {
        let rules = BookRules::default();
        let mut contents = read_text("-\tf2e3A 60 d3e3W 0\nf2e3A\tc3d4W 30 f3f2A 10\n", rules)
            .unwrap()
            .contents;
        // Scores as a build leaves them: d3e3W better by the search but not played.
        let start = rules.rules().start().key();
        for turn in contents.positions.get_mut(&start).unwrap() {
            (turn.score, turn.depth) = if turn.turn == "d3e3W" {
                (40, 9)
            } else {
                (29_990, 9)
            };
        }
        // A stand-in for the proof store: it knows one turn from the start.
        let start = rules.rules().start();
        let proven_turn = parse_turn(&start, rules.rules().turn_rules(), "d3e3W").unwrap();
        let written = write_web_json(&contents, "vato test", |position, turn| {
            (*position == start && turn == proven_turn).then(|| "draw".to_string())
        });
        assert_eq!(
            (written.nodes, written.positions, written.unreachable),
            (2, 2, 0)
        );
        serde_json::from_str(&written.json).unwrap()
    }

    #[test]
    fn the_base_has_the_keys_the_interface_reads() {
        let base = base();
        let object = base.as_object().unwrap();
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, ["games", "net", "nodes", "positions"]);
        assert_eq!(base["net"], "vato test");
        assert_eq!(base["positions"], 2);
        assert!(base["games"].is_string());
        let nodes = base["nodes"].as_object().unwrap();
        let paths: Vec<&str> = nodes.keys().map(String::as_str).collect();
        assert_eq!(paths, ["", "f2e3A"]);
        for node in nodes.values() {
            assert!(node["d"].is_u64());
            for line in node["l"].as_array().unwrap() {
                let line = line.as_array().unwrap();
                assert!(line.len() == 3 || line.len() == 4 && line[3].is_string());
                assert!(line[0].is_string() && line[1].is_i64() && line[2].is_string());
                assert!(
                    line[2]
                        .as_str()
                        .unwrap()
                        .starts_with(line[0].as_str().unwrap())
                );
            }
        }
    }

    #[test]
    fn lines_go_best_first_with_the_book_continuation() {
        let base = base();
        let start = &base["nodes"][""];
        assert_eq!(start["d"], 9);
        assert_eq!(
            start["l"],
            json!([
                ["f2e3A", 29_990, "f2e3A c3d4W"],
                ["d3e3W", 40, "d3e3W", "draw"]
            ])
        );
        // Without scores (a book from text), the weights order the lines.
        assert_eq!(
            base["nodes"]["f2e3A"]["l"],
            json!([["c3d4W", 0, "c3d4W"], ["f3f2A", 0, "f3f2A"]])
        );
    }
}
