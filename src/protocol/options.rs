//! The engine's options, as `uci` declares them and `setoption` changes them.

use crate::engine::search::{PARAMETERS, SearchConfig};
use crate::rules::position::Color;
use crate::rules::variant::Variant;
use crate::rules::{ChainRule, DEFAULT_NO_CAPTURE_LIMIT, Rules};
use crate::tablebase::MAX_STONES;

/// The value of `TablebasePath` that means the default folder of the tables.
pub const DEFAULT_TABLEBASE_PATH: &str = "<default>";

/// The kind and range of an option, as declared to the interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    Text {
        default: &'static str,
    },
    Combo {
        default: &'static str,
        values: &'static [&'static str],
    },
}

struct Spec {
    name: &'static str,
    kind: Kind,
}

/// Largest transposition table, in MiB.
pub const MAX_HASH_MB: i64 = 65_536;

const SPECS: &[Spec] = &[
    Spec {
        name: "Hash",
        kind: Kind::Spin {
            default: 16,
            min: 1,
            max: MAX_HASH_MB,
        },
    },
    Spec {
        name: "Clear Hash",
        kind: Kind::Button,
    },
    // Lazy SMP: any number of threads share the table.
    Spec {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    Spec {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    Spec {
        name: "Ponder",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "Move Overhead",
        kind: Kind::Spin {
            default: 10,
            min: 0,
            max: 5000,
        },
    },
    Spec {
        name: "Debug Log File",
        kind: Kind::Text { default: "" },
    },
    // `<default>`: the folder every Vato looks in (see `tablebase::default_dir`); empty:
    // no tables.
    Spec {
        name: "TablebasePath",
        kind: Kind::Text {
            default: DEFAULT_TABLEBASE_PATH,
        },
    },
    // Memory grows about tenfold per stone (6 stones: 1.1 GB, 7: 12.5 GB).
    Spec {
        name: "TablebaseStones",
        kind: Kind::Spin {
            default: MAX_STONES as i64,
            min: 2,
            max: MAX_STONES as i64,
        },
    },
    // Weaker play for people: 20 is full strength.
    Spec {
        name: "Skill Level",
        kind: Kind::Spin {
            default: MAX_SKILL as i64,
            min: 0,
            max: MAX_SKILL as i64,
        },
    },
    Spec {
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: MAX_ELO,
            min: MIN_ELO,
            max: MAX_ELO,
        },
    },
    Spec {
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
    },
    // The learned evaluation (on by default) and the file of its network.
    Spec {
        name: "UseNNUE",
        kind: Kind::Check { default: true },
    },
    Spec {
        name: "EvalFile",
        kind: Kind::Text {
            default: EMBEDDED_NET,
        },
    },
    Spec {
        name: "NoCaptureLimit",
        kind: Kind::Spin {
            default: DEFAULT_NO_CAPTURE_LIMIT as i64,
            min: 0,
            max: 10_000,
        },
    },
    Spec {
        name: "MandatoryContinuation",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "Variant",
        kind: Kind::Combo {
            default: "tsivy",
            values: &["tsivy", "dimy", "telo"],
        },
    },
    Spec {
        name: "Vela",
        kind: Kind::Combo {
            default: "none",
            values: &["none", "white", "black"],
        },
    },
    // The opening book: off by default, as UCI engines have it.
    Spec {
        name: "OwnBook",
        kind: Kind::Check { default: false },
    },
    // Empty: the book built into Vato.
    Spec {
        name: "BookFile",
        kind: Kind::Text { default: "" },
    },
    Spec {
        name: "BookVariety",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "BookDepth",
        kind: Kind::Spin {
            default: 40,
            min: 0,
            max: 1000,
        },
    },
    // A proof written by `vato solve --proof`; empty: none.
    Spec {
        name: "ProofFile",
        kind: Kind::Text { default: "" },
    },
];

/// `EvalFile`'s value for the network built into the binary.
pub const EMBEDDED_NET: &str = "<embedded>";

/// Full strength for `Skill Level`.
pub const MAX_SKILL: u32 = 20;
/// The range of `UCI_Elo` (see [`crate::engine::skill::level_for_elo`]).
pub const MIN_ELO: i64 = 500;
/// The top of `UCI_Elo`'s range.
pub const MAX_ELO: i64 = 1423;

/// What a successful `setoption` changed, so the session can act on it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// `Hash`: the table must be resized.
    Hash,
    /// `Clear Hash` was pressed.
    ClearHash,
    /// `Debug Log File`: open or close the log.
    DebugLogFile,
    /// `TablebasePath` or `TablebaseStones`: open other endgame tables, or none.
    TablebasePath,
    /// A rule option: the game's rules change.
    Rules,
    /// `Variant` or `Vela`: another game, from its start.
    Game,
    /// `EvalFile`: read another network.
    EvalFile,
    /// `OwnBook` or `BookFile`: read the book, or another one.
    Book,
    /// `ProofFile`: read a proof, or drop the one in use.
    Proof,
    /// Anything read only when the next search starts.
    Other,
}

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Transposition table size in MiB.
    pub hash_mb: u32,
    /// Search threads.
    pub threads: u32,
    /// Principal variations to report.
    pub multipv: u32,
    /// Whether the interface wants `ponder` turns in `bestmove`.
    pub ponder: bool,
    /// Milliseconds kept in hand per turn for delays outside the engine.
    pub move_overhead_ms: u32,
    /// Where to log every protocol line (empty: no log).
    pub debug_log_file: String,
    /// Directory of endgame tables (empty: none).
    pub tablebase_path: String,
    /// Most stones of the table layers read and probed.
    pub tablebase_stones: u32,
    /// `Skill Level`, 0 (weakest) to 20 (full strength).
    pub skill_level: u32,
    /// `UCI_LimitStrength`: play at `UCI_Elo` instead of `Skill Level`.
    pub limit_strength: bool,
    /// `UCI_Elo`: the strength aimed at when `UCI_LimitStrength` is on.
    pub elo: u32,
    /// `UCI_ShowWDL`: win, draw and loss chances in the `info` lines.
    pub show_wdl: bool,
    /// `UseNNUE`: the network evaluates; the hand-written evaluation when false.
    pub use_nnue: bool,
    /// `EvalFile`: the network's file, or [`EMBEDDED_NET`].
    pub eval_file: String,
    /// Rule option `NoCaptureLimit`.
    pub no_capture_limit: u32,
    /// Rule option: capture chains must go on while they can.
    pub mandatory_continuation: bool,
    /// `Variant`: the game played.
    pub variant: Variant,
    /// `Vela`: the side a vela game favours (Tsivy only); `None` for an ordinary game.
    pub vela: Option<Color>,
    /// `OwnBook`: play the book's turns while the position is in it.
    pub own_book: bool,
    /// `BookFile`: the book's file (Vato's or the web interface's text); empty: the
    /// built-in book.
    pub book_file: String,
    /// `BookVariety`: draw the book's turn by the weights instead of playing the first.
    pub book_variety: bool,
    /// `BookDepth`: the book is used for the game's first this many plies.
    pub book_depth: u32,
    /// `ProofFile`: a proof whose strategies the engine plays (empty: none).
    pub proof_file: String,
    /// The search's numeric parameters (the `Search...` options, for tuning).
    pub search: SearchConfig,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: 10,
            debug_log_file: String::new(),
            tablebase_path: DEFAULT_TABLEBASE_PATH.to_string(),
            tablebase_stones: MAX_STONES as u32,
            skill_level: MAX_SKILL,
            limit_strength: false,
            elo: MAX_ELO as u32,
            show_wdl: false,
            use_nnue: true,
            eval_file: EMBEDDED_NET.to_string(),
            no_capture_limit: DEFAULT_NO_CAPTURE_LIMIT,
            mandatory_continuation: false,
            variant: Variant::Tsivy,
            vela: None,
            own_book: false,
            book_file: String::new(),
            book_variety: false,
            book_depth: 40,
            proof_file: String::new(),
            search: SearchConfig::default(),
        }
    }
}

impl EngineOptions {
    /// One `option name ... type ...` line per option, for `uci`.
    pub fn declarations() -> Vec<String> {
        let search = PARAMETERS.iter().map(|p| {
            let kind = Kind::Spin {
                default: p.default_value().into(),
                min: p.min.into(),
                max: p.max.into(),
            };
            declaration(p.name, kind)
        });
        SPECS
            .iter()
            .map(|spec| declaration(spec.name, spec.kind))
            .chain(search)
            .collect()
    }

    /// The skill level in force: from `UCI_Elo` when `UCI_LimitStrength` is on, else
    /// `Skill Level`.
    pub fn effective_skill(&self) -> u32 {
        if self.limit_strength {
            crate::engine::skill::level_for_elo(self.elo)
        } else {
            self.skill_level
        }
    }

    /// The rule options in force.
    pub fn rules(&self) -> Rules {
        Rules {
            no_capture_limit: self.no_capture_limit,
            chain_rule: ChainRule::mandatory_if(self.mandatory_continuation),
            // The vela game is Tsivy's.
            vela: self.vela.filter(|_| self.variant == Variant::Tsivy),
            board: self.variant.board().unwrap_or_default(),
        }
    }

    /// Applies `setoption`; on error nothing changes and the message says why.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, String> {
        let Some(spec) = SPECS.iter().find(|s| s.name.eq_ignore_ascii_case(name)) else {
            if let Some(parameter) = PARAMETERS
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
            {
                let (name, min, max) = (parameter.name, parameter.min, parameter.max);
                let n = spin_value(name, value, min.into(), max.into())?;
                parameter.set(&mut self.search, n as i32);
                return Ok(Change::Other);
            }
            return Err(format!("unknown option '{name}'"));
        };
        let name = spec.name;
        match spec.kind {
            Kind::Button => {
                if let Some(v) = value {
                    return Err(format!(
                        "option '{name}' is a button and takes no value, found '{v}'"
                    ));
                }
                Ok(Change::ClearHash)
            }
            Kind::Spin { min, max, .. } => {
                let n = spin_value(name, value, min, max)? as u32;
                Ok(match name {
                    "Hash" => {
                        self.hash_mb = n;
                        Change::Hash
                    }
                    "Threads" => {
                        self.threads = n;
                        Change::Other
                    }
                    "MultiPV" => {
                        self.multipv = n;
                        Change::Other
                    }
                    "Move Overhead" => {
                        self.move_overhead_ms = n;
                        Change::Other
                    }
                    "NoCaptureLimit" => {
                        self.no_capture_limit = n;
                        Change::Rules
                    }
                    "Skill Level" => {
                        self.skill_level = n;
                        Change::Other
                    }
                    "UCI_Elo" => {
                        self.elo = n;
                        Change::Other
                    }
                    "TablebaseStones" => {
                        self.tablebase_stones = n;
                        Change::TablebasePath
                    }
                    "BookDepth" => {
                        self.book_depth = n;
                        Change::Other
                    }
                    _ => unreachable!("every spin option is listed"),
                })
            }
            Kind::Check { .. } => {
                let text = value.ok_or_else(|| format!("option '{name}' needs true or false"))?;
                let flag = match text.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "option '{name}' needs true or false, found '{text}'"
                        ));
                    }
                };
                Ok(match name {
                    "Ponder" => {
                        self.ponder = flag;
                        Change::Other
                    }
                    "MandatoryContinuation" => {
                        self.mandatory_continuation = flag;
                        Change::Rules
                    }
                    "UCI_LimitStrength" => {
                        self.limit_strength = flag;
                        Change::Other
                    }
                    "UCI_ShowWDL" => {
                        self.show_wdl = flag;
                        Change::Other
                    }
                    "UseNNUE" => {
                        self.use_nnue = flag;
                        Change::Other
                    }
                    "OwnBook" => {
                        self.own_book = flag;
                        Change::Book
                    }
                    "BookVariety" => {
                        self.book_variety = flag;
                        Change::Other
                    }
                    _ => unreachable!("every check option is listed"),
                })
            }
            Kind::Combo { values, .. } => {
                let text = value.ok_or_else(|| format!("option '{name}' needs a value"))?;
                let refusal = || {
                    format!(
                        "option '{name}' must be one of {}, found '{text}'",
                        values.join(", ")
                    )
                };
                match name {
                    "Variant" => self.variant = Variant::from_name(text).ok_or_else(refusal)?,
                    "Vela" => {
                        self.vela = match text.trim().to_ascii_lowercase().as_str() {
                            "none" => None,
                            side => Some(Color::from_name(side).ok_or_else(refusal)?),
                        }
                    }
                    _ => unreachable!("every combo option is listed"),
                }
                Ok(Change::Game)
            }
            Kind::Text { .. } => {
                let text = value.unwrap_or("");
                let text = if text == "<empty>" { "" } else { text }.to_string();
                Ok(match name {
                    "Debug Log File" => {
                        self.debug_log_file = text;
                        Change::DebugLogFile
                    }
                    "EvalFile" => {
                        self.eval_file = if text.is_empty() {
                            EMBEDDED_NET.to_string()
                        } else {
                            text
                        };
                        Change::EvalFile
                    }
                    "TablebasePath" => {
                        self.tablebase_path = text;
                        Change::TablebasePath
                    }
                    "BookFile" => {
                        self.book_file = text;
                        Change::Book
                    }
                    "ProofFile" => {
                        self.proof_file = text;
                        Change::Proof
                    }
                    _ => unreachable!("every string option is listed"),
                })
            }
        }
    }
}

/// The `option name ... type ...` line of the option `name`.
fn declaration(name: &str, kind: Kind) -> String {
    match kind {
        Kind::Spin { default, min, max } => {
            format!("option name {name} type spin default {default} min {min} max {max}")
        }
        Kind::Check { default } => format!("option name {name} type check default {default}"),
        Kind::Button => format!("option name {name} type button"),
        Kind::Combo { default, values } => {
            let values: String = values.iter().map(|v| format!(" var {v}")).collect();
            format!("option name {name} type combo default {default}{values}")
        }
        Kind::Text { default } => format!(
            "option name {name} type string default {}",
            if default.is_empty() {
                "<empty>"
            } else {
                default
            }
        ),
    }
}

/// The value of the spin option `name`, checked against its range.
fn spin_value(name: &str, value: Option<&str>, min: i64, max: i64) -> Result<i64, String> {
    let text = value.ok_or_else(|| format!("option '{name}' needs a value"))?;
    let n: i64 = text.parse().map_err(|_| {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            format!("option '{name}' value '{text}' is out of range ({min} to {max})")
        } else {
            format!("option '{name}' needs a whole number, found '{text}'")
        }
    })?;
    if !(min..=max).contains(&n) {
        return Err(format!(
            "option '{name}' must be between {min} and {max}, found {n}"
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablebase_stones_reopen_the_tables() {
        let mut o = EngineOptions::default();
        assert_eq!(o.tablebase_stones, 8);
        assert_eq!(
            o.set("TablebaseStones", Some("6")),
            Ok(Change::TablebasePath)
        );
        assert_eq!(o.tablebase_stones, 6);
        assert!(o.set("TablebaseStones", Some("1")).is_err());
        assert!(o.set("TablebaseStones", Some("9")).is_err());
        assert_eq!(o.tablebase_stones, 6);
    }

    #[test]
    fn names_are_case_insensitive_and_ranges_checked() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("hash", Some("64")), Ok(Change::Hash));
        assert_eq!(o.hash_mb, 64);
        assert_eq!(
            o.set("Hash", Some("0")),
            Err("option 'Hash' must be between 1 and 65536, found 0".into())
        );
        assert_eq!(
            o.set("Hash", Some("lots")),
            Err("option 'Hash' needs a whole number, found 'lots'".into())
        );
        assert_eq!(o.hash_mb, 64);
        assert_eq!(
            o.set("Threads", Some("0")),
            Err("option 'Threads' must be between 1 and 256, found 0".into())
        );
        assert_eq!(
            o.set("Bogus", Some("1")),
            Err("unknown option 'Bogus'".into())
        );
        assert_eq!(o.set("clear hash", None), Ok(Change::ClearHash));
        assert_eq!(o.set("PONDER", Some("TRUE")), Ok(Change::Other));
        assert!(o.ponder);
        assert!(o.set("Ponder", Some("yes")).is_err());
    }

    #[test]
    fn rule_options_reach_the_rules() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("NoCaptureLimit", Some("0")), Ok(Change::Rules));
        assert_eq!(
            o.set("MandatoryContinuation", Some("true")),
            Ok(Change::Rules)
        );
        assert_eq!(
            o.rules(),
            Rules {
                no_capture_limit: 0,
                chain_rule: ChainRule::Mandatory,
                vela: None,
                board: crate::rules::board::Board::Tsivy,
            }
        );
    }

    #[test]
    fn variants_and_the_book_options() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("Variant", Some("tsivy")), Ok(Change::Game));
        assert_eq!(o.set("variant", Some("Fanoron-Dimy")), Ok(Change::Game));
        assert_eq!(o.variant, Variant::Dimy);
        assert_eq!(
            o.set("Variant", Some("chess")),
            Err("option 'Variant' must be one of tsivy, dimy, telo, found 'chess'".into())
        );
        assert_eq!(o.variant, Variant::Dimy);
        assert_eq!(o.set("Variant", Some("TSIVY")), Ok(Change::Game));
        assert_eq!(o.set("Vela", Some("none")), Ok(Change::Game));
        assert_eq!(o.set("Vela", Some("Black")), Ok(Change::Game));
        assert_eq!(o.rules().vela, Some(Color::Black));
        assert!(o.set("Vela", Some("both")).is_err());
        assert_eq!(o.set("Vela", Some("none")), Ok(Change::Game));
        assert_eq!(o, EngineOptions::default());
        assert!(!o.own_book);
        assert_eq!(o.set("OwnBook", Some("true")), Ok(Change::Book));
        assert_eq!(o.set("BookFile", Some("book.txt")), Ok(Change::Book));
        assert_eq!(o.set("BookFile", Some("<empty>")), Ok(Change::Book));
        assert_eq!(o.set("BookVariety", Some("true")), Ok(Change::Other));
        assert_eq!(o.set("BookDepth", Some("12")), Ok(Change::Other));
        assert!(o.own_book && o.book_file.is_empty() && o.book_variety);
        assert_eq!(o.book_depth, 12);
    }

    #[test]
    fn search_parameters_are_options() {
        let mut o = EngineOptions::default();
        assert_eq!(
            o.set("searchaspirationdelta", Some("55")),
            Ok(Change::Other)
        );
        assert_eq!(o.search.aspiration_delta, 55);
        assert_eq!(
            o.set("SearchQuiescencePlies", Some("0")),
            Err("option 'SearchQuiescencePlies' must be between 1 and 16, found 0".into())
        );
        assert_eq!(o.search.quiescence_plies, 4);
        assert!(EngineOptions::declarations().contains(
            &"option name SearchAspirationDelta type spin default 40 min 5 max 400".into()
        ));
    }

    #[test]
    fn every_option_is_declared() {
        let lines = EngineOptions::declarations();
        assert_eq!(lines.len(), SPECS.len() + PARAMETERS.len());
        assert!(
            lines.contains(&"option name Threads type spin default 1 min 1 max 256".to_string())
        );
        assert!(
            lines.contains(&"option name Debug Log File type string default <empty>".to_string())
        );
    }
}
