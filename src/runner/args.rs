//! The command line of `vato match`, and its translation into a [`MatchConfig`].

use super::engine::{ENGINE_KEYS, EngineSpec};
use super::openings::{OpeningSource, Rng, read_openings};
use super::referee::{Adjudication, DrawRule, ResignRule};
use super::stats::{EloModel, Sprt};
use super::tournament::{MatchConfig, Schedule, TournamentKind};
use crate::rules::board::Board;
use crate::rules::position::Color;
use crate::rules::variant::parse_capture_board;
use crate::rules::{ChainRule, DEFAULT_NO_CAPTURE_LIMIT, Rules};
use crate::shard::Shard;
use anyhow::{Result, anyhow, bail};
use clap::{ArgAction, Args, ValueEnum};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

const ENGINE_HELP: &str = "\
Engine keys (for --engine and --each; an engine's own keys win over --each):
  name=NAME          name in records and standings (default: the program's file name)
  cmd=PROGRAM        the program to run (required)
  arg=ARG            an argument for it (repeat for several)
  dir=DIR            its working directory
  proto=uci|ugi      the handshake it speaks (default uci)
  option.NAME=VALUE  sent as 'setoption name NAME value VALUE' (quote names with spaces)
  tc=[N/]BASE[+INC]  a clock in seconds: 10+0.1, 60, 40/120+1
  movetime=MS        time per turn (250, 250ms or 0.25s)
  depth=N            search depth
  nodes=N            search nodes
  timemargin=MS      slack beyond the clock or move time before a time forfeit (default 100)
  timeout=MS         longest wait for uciok, readyok, and for bestmove when the search has
                     neither clock nor move time (default 30000)
Every engine needs at least one of tc, movetime, depth and nodes.

Faults lose the game: an illegal move, a time forfeit, a crash (closed output or exit),
no answer within the time-out. A crashed engine is restarted for its next game.
Ctrl-C stops cleanly: the games in progress are abandoned, the engines are told to quit,
the records are complete and the standings are printed (press it twice to quit at once).

Examples:
  vato match --engine name=new cmd=./new/vato --engine name=base cmd=./base/vato \\
      --each tc=10+0.1 option.Hash=64 --games 200 --concurrency 2 \\
      --openings scripts/openings.txt --sprt elo0=0 elo1=5 --pgn games.pgn
  vato match --engine cmd=vato depth=2 name=a --engine cmd=vato depth=1 name=b --games 4
  vato match --summary games.pgn";

/// Who plays whom.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
    /// Exactly two engines.
    HeadToHead,
}

/// The order in which the openings of a file are used.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Order {
    /// As in the file.
    Sequential,
    /// Shuffled by the seed.
    Random,
}

/// Plays engines against each other with Vato's rules as the referee: tournaments in
/// colour-swapped pairs, Elo, LOS, pentanomial counts and SPRT, game records.
#[derive(Debug, Args)]
#[command(after_long_help = ENGINE_HELP)]
pub struct MatchArgs {
    /// The engines.
    #[command(flatten)]
    pub engines: EngineWords,

    /// KEY=VALUE words applied to every engine before its own (for example tc=10+0.1).
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append)]
    pub each: Vec<String>,

    /// Who plays whom; with two engines every kind is one head-to-head match.
    #[arg(long, value_enum, default_value_t = Kind::RoundRobin)]
    pub tournament: Kind,

    /// Games per pairing per round, played in colour-swapped pairs from the same opening
    /// (default 2; with --sprt and no --rounds, unlimited until the test decides).
    #[arg(long, value_name = "N")]
    pub games: Option<u32>,

    /// Rounds: each plays --games games for every pairing with new openings.
    #[arg(long, value_name = "N")]
    pub rounds: Option<u64>,

    /// Games played at the same time.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,

    /// Seed for shuffled and generated openings (default: from the clock; the header
    /// line shows it so that a run can be repeated).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Opening file: one opening per line, a position string or `startpos`, either
    /// optionally followed by turns; `#` starts a comment. Without openings every game
    /// starts from the start position.
    #[arg(long, value_name = "FILE", conflicts_with = "random_openings")]
    pub openings: Option<PathBuf>,

    /// The order of the opening file's lines.
    #[arg(long, value_enum, default_value_t = Order::Sequential)]
    pub openings_order: Order,

    /// Generate random balanced openings of N turns: random legal turns, refused while
    /// the stone counts differ by more than one or the side to move can take more than
    /// two stones at once.
    #[arg(long, value_name = "N")]
    pub random_openings: Option<u32>,

    /// Print COUNT distinct generated openings (with --random-openings and --seed) as
    /// lines of an opening file, and exit.
    #[arg(long, value_name = "COUNT", requires = "random_openings")]
    pub print_openings: Option<usize>,

    /// Draw after this many turns in a row without a capture (0: off); sent to every
    /// engine that declares the option NoCaptureLimit.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_NO_CAPTURE_LIMIT)]
    pub no_capture_limit: u32,

    /// Play the variant where a capturing stone must go on while it can capture (every
    /// engine must declare MandatoryContinuation).
    #[arg(long)]
    pub mandatory_continuation: bool,

    /// The game: tsivy (9 x 5) or dimy (5 x 5). For dimy every engine must declare the
    /// option Variant, which is set to dimy.
    #[arg(long, value_name = "GAME", default_value = "tsivy", value_parser = parse_capture_board)]
    pub variant: Board,

    /// Play the vela game favouring this side, white or black (Tsivy only): the favoured
    /// side moves first and, while the other has more than five stones, captures one stone
    /// a turn. Every engine must declare the option Vela, which is set to the side.
    #[arg(long, value_name = "SIDE", value_parser = parse_side)]
    pub vela: Option<Color>,

    /// Adjudicate a draw after this many turns of the engines.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,

    /// Adjudicate a draw once both engines' last N scores are within +/-CP:
    /// turns=N score=CP [after=M] (not before M turns of the engines).
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    pub draw: Option<Vec<String>>,

    /// Adjudicate a loss once an engine's last N scores are at or below -CP and its
    /// opponent's last N at or above CP: turns=N score=CP.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    pub resign: Option<Vec<String>>,

    /// Sequential probability ratio test over game pairs, stopping the match at a bound:
    /// elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=logistic|normalized]. Two engines.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    pub sprt: Option<Vec<String>>,

    /// Append the game records to this file (PGN-like; read back with --summary).
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,

    /// Append each engine's protocol to DIR/NAME-WORKER.log: `>>` lines sent, `<<` lines
    /// received, `!!` its standard error (worker 0: the check at the start).
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// Print the standings every N finished games (0: only at the end).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub report_every: u64,

    /// The Event tag of the records.
    #[arg(long, value_name = "NAME", default_value = "vato match")]
    pub event: String,

    /// Play only shard K of N: every N-th colour-swapped pair of the schedule, starting
    /// with the K-th, so that the N shards of one seed play exactly the games of the
    /// unsharded match (merge their records with --summary). Needs a fixed number of
    /// games, so no --sprt: test the merged records instead.
    #[arg(long, value_name = "K/N", conflicts_with = "sprt")]
    pub shard: Option<Shard>,

    /// Read record files, replay every game through the rules and print the standings
    /// (with --sprt, the test's LLR too), instead of playing. Several files, such as the
    /// records of a match's shards, are merged in schedule order.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["engine", "print_openings"])]
    pub summary: Option<Vec<PathBuf>>,
}

/// The words of each `--engine`, one list per occurrence. The derive cannot group values
/// by occurrence, so this argument is declared by hand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineWords(pub Vec<Vec<String>>);

impl clap::FromArgMatches for EngineWords {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let groups = matches
            .get_occurrences::<String>("engine")
            .map(|occurrences| occurrences.map(|words| words.cloned().collect()).collect())
            .unwrap_or_default();
        Ok(EngineWords(groups))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for EngineWords {
    fn augment_args(command: clap::Command) -> clap::Command {
        command.arg(
            clap::Arg::new("engine")
                .long("engine")
                .value_name("KEY=VALUE")
                .num_args(1..)
                .action(ArgAction::Append)
                .help("An engine, as KEY=VALUE words (keys below); repeat for each engine"),
        )
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

/// `KEY=VALUE` words as a map; every key must be one of `known`.
fn key_values(option: &str, words: &[String], known: &[&str]) -> Result<HashMap<String, String>> {
    let mut map = HashMap::new();
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| anyhow!("{option}: expected KEY=VALUE, found '{word}'"))?;
        if !known.contains(&key) {
            bail!(
                "{option}: unknown key '{key}' (known: {})",
                known.join(", ")
            );
        }
        map.insert(key.to_string(), value.to_string());
    }
    Ok(map)
}

fn number<T: std::str::FromStr>(
    option: &str,
    map: &HashMap<String, String>,
    key: &str,
) -> Result<Option<T>> {
    map.get(key)
        .map(|v| {
            v.parse::<T>()
                .map_err(|_| anyhow!("{option}: {key} must be a number, found '{v}'"))
        })
        .transpose()
}

fn required<T: std::str::FromStr>(
    option: &str,
    map: &HashMap<String, String>,
    key: &str,
) -> Result<T> {
    number(option, map, key)?.ok_or_else(|| anyhow!("{option}: {key}= is missing"))
}

/// A side, `white` or `black`, in any case.
pub fn parse_side(text: &str) -> Result<Color, String> {
    Color::from_name(&text.trim().to_ascii_lowercase())
        .ok_or_else(|| format!("'{text}' is not a side: write white or black"))
}

impl MatchArgs {
    /// The rule options; the vela game is Tsivy's only.
    pub fn rules(&self) -> Result<Rules> {
        if self.vela.is_some() && self.variant != Board::Tsivy {
            bail!(
                "--vela: the vela game is played on Tsivy's board, not {}",
                self.variant.name()
            );
        }
        Ok(Rules {
            no_capture_limit: self.no_capture_limit,
            chain_rule: ChainRule::mandatory_if(self.mandatory_continuation),
            vela: self.vela,
            board: self.variant,
        })
    }

    /// The seed: given, or from the clock.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64 % 1_000_000_007)
                .unwrap_or(1)
        })
    }

    /// The SPRT settings, if asked for.
    pub fn sprt(&self) -> Result<Option<Sprt>> {
        let Some(words) = &self.sprt else {
            return Ok(None);
        };
        let map = key_values("--sprt", words, &["elo0", "elo1", "alpha", "beta", "model"])?;
        let model = match map.get("model").map(String::as_str) {
            None | Some("logistic") => EloModel::Logistic,
            Some("normalized") => EloModel::Normalized,
            Some(other) => bail!("--sprt: model must be logistic or normalized, found '{other}'"),
        };
        let sprt = Sprt::new(
            required("--sprt", &map, "elo0")?,
            required("--sprt", &map, "elo1")?,
            number("--sprt", &map, "alpha")?.unwrap_or(0.05),
            number("--sprt", &map, "beta")?.unwrap_or(0.05),
            model,
        )
        .map_err(|e| anyhow!("--sprt: {e}"))?;
        Ok(Some(sprt))
    }

    fn adjudication(&self) -> Result<Adjudication> {
        let draw = match &self.draw {
            None => None,
            Some(words) => {
                let map = key_values("--draw", words, &["turns", "score", "after"])?;
                Some(DrawRule {
                    turns: required("--draw", &map, "turns")?,
                    score: required("--draw", &map, "score")?,
                    after: number("--draw", &map, "after")?.unwrap_or(0),
                })
            }
        };
        let resign = match &self.resign {
            None => None,
            Some(words) => {
                let map = key_values("--resign", words, &["turns", "score"])?;
                Some(ResignRule {
                    turns: required("--resign", &map, "turns")?,
                    score: required("--resign", &map, "score")?,
                })
            }
        };
        if draw.is_some_and(|d| d.turns == 0) || resign.is_some_and(|r| r.turns == 0) {
            bail!("--draw and --resign need turns of at least 1");
        }
        Ok(Adjudication {
            max_turns: self.max_turns.filter(|&m| m > 0),
            draw,
            resign,
        })
    }

    /// The whole match, checked; `seed` is the one from [`MatchArgs::seed`].
    pub fn config(&self, seed: u64) -> Result<MatchConfig> {
        if self.engines.0.len() < 2 {
            bail!(
                "a match needs at least two --engine (keys: {ENGINE_KEYS}); see vato match --help"
            );
        }
        let engines = self
            .engines
            .0
            .iter()
            .enumerate()
            .map(|(i, words)| EngineSpec::from_words(&self.each, words, i + 1))
            .collect::<Result<Vec<_>, _>>()?;
        let sprt = self.sprt()?;
        let kind = match self.tournament {
            Kind::RoundRobin => TournamentKind::RoundRobin,
            Kind::Gauntlet => TournamentKind::Gauntlet,
            Kind::HeadToHead => TournamentKind::HeadToHead,
        };
        let (games, rounds) = match (self.games, self.rounds, sprt.is_some()) {
            (None, None, true) => (2, None),
            (games, rounds, _) => (games.unwrap_or(2), Some(rounds.unwrap_or(1))),
        };
        let schedule = Schedule::new(kind, engines.len(), games, rounds)?;
        let shard = self.shard.unwrap_or(Shard::WHOLE);
        let rules = self.rules()?;
        let (openings, openings_label) = match (&self.openings, self.random_openings) {
            (Some(path), _) => {
                let mut list = read_openings(path, rules)?;
                if self.openings_order == Order::Random {
                    Rng::new(seed).shuffle(&mut list);
                }
                let label = format!(
                    "{} ({} openings, {})",
                    path.display(),
                    list.len(),
                    match self.openings_order {
                        Order::Sequential => "in order",
                        Order::Random => "shuffled",
                    }
                );
                (OpeningSource::List(list), label)
            }
            (None, Some(turns)) => (
                OpeningSource::Random { turns, seed },
                format!("random balanced openings of {turns} turns"),
            ),
            (None, None) => (OpeningSource::Startpos, "the start position".into()),
        };
        Ok(MatchConfig {
            engines,
            schedule,
            concurrency: self.concurrency,
            openings,
            openings_label,
            rules,
            adjudication: self.adjudication()?,
            sprt,
            pgn: self.pgn.clone(),
            log_dir: self.log_dir.clone(),
            report_every: self.report_every,
            event: self.event.clone(),
            seed,
            shard,
        })
    }
}
