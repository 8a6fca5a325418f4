//! The `vato book` command line: build, export, import, merge and openings.

use super::build::{BuildSettings, build};
use super::contents::{BookContents, BookRules};
use super::file::{Book, encode};
use super::journal::Journal;
use super::suite::opening_suite;
use super::text::write_text;
use super::web_json::write_web_json;
use crate::progress::{JobProgress, PLAIN_EVERY, stop_on_ctrl_c};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::fen::parse_position_on;
use crate::rules::position::Position;
use crate::rules::turn::Turn;
use crate::safe_file::write_atomically;
use crate::shard::Shard;
use crate::tablebase::TableRules;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The `vato book` jobs.
#[derive(Debug, clap::Subcommand)]
pub enum BookCommand {
    /// Builds a book by searching the opening tree; resumable from FILE.journal.
    Build {
        /// The book file to write (its journal of searched positions is FILE.journal).
        #[arg(long)]
        out: PathBuf,
        /// The position the book starts from; default the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Depth of each position's search.
        #[arg(long, default_value_t = 10)]
        depth: u8,
        /// Lines (MultiPV) of each search: the turns the book knows per position.
        #[arg(long, default_value_t = 4)]
        lines: u8,
        /// Turns at most this many centi-stones below the best are played and expanded.
        #[arg(long, default_value_t = 40)]
        margin: i16,
        /// Turns from the root that the book covers.
        #[arg(long, default_value_t = 8)]
        plies: u32,
        /// Stop after this many positions searched (journal included).
        #[arg(long)]
        positions: Option<usize>,
        /// Searches run side by side; default all cores.
        #[arg(long)]
        threads: Option<usize>,
        /// Expand only every N-th of the root's turns, from the K-th: one of N machines'
        /// part of the book, joined by `vato book merge`.
        #[arg(long, value_name = "K/N", default_value = "1/1")]
        shard: Shard,
        /// Transposition table of each search, in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Evaluate by the hand-written terms instead of the built-in network.
        #[arg(long)]
        hand_written: bool,
        /// Evaluate with this network instead of the built-in one.
        #[arg(long)]
        eval_file: Option<PathBuf>,
        /// Endgame tables: positions in them are left out, and the searches probe them.
        #[arg(long)]
        tables: Option<PathBuf>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Writes a book (Vato's file or the web interface's text) as the web interface's text
    /// or as its opening base (JSON, for the Openings panel).
    Export {
        /// The book to read.
        book: PathBuf,
        /// The file to write.
        text: PathBuf,
        /// `text` (the interface's engine book) or `json` (its opening base); default
        /// `json` for a file ending in `.json`, else `text`.
        #[arg(long)]
        format: Option<ExportFormat>,
        /// The proof store whose values the opening base gives its turns (`json` only);
        /// default the one in Vato's data folder, if any (`$VATO_PROOFS`).
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Reads a book in the web interface's text form into Vato's book file.
    Import {
        /// The text to read.
        text: PathBuf,
        /// The book file to write.
        book: PathBuf,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Joins books (shards of one build, or any books of the same rules) into one.
    Merge {
        /// The book file to write.
        out: PathBuf,
        /// The books to join.
        #[arg(required = true)]
        books: Vec<PathBuf>,
        #[command(flatten)]
        rules: TableRules,
    },
    /// Prints match openings from a book: the positions PLIES turns in whose searched
    /// score gives one side between LOW and HIGH centi-stones.
    Openings {
        /// The book to read.
        book: PathBuf,
        /// Turns from the start.
        #[arg(long, default_value_t = 6)]
        plies: usize,
        /// The smallest edge kept, in centi-stones.
        #[arg(long, default_value_t = 30)]
        low: i16,
        /// The largest edge kept, in centi-stones.
        #[arg(long, default_value_t = 100)]
        high: i16,
        #[command(flatten)]
        rules: TableRules,
    },
}

/// What `vato book export` writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// The web interface's text book, with the scores in `#scores` comment lines.
    Text,
    /// The web interface's opening base, `tools/gui/book.json`.
    Json,
}

impl ExportFormat {
    /// The format asked for, or the one the file's name says.
    fn for_file(asked: Option<ExportFormat>, path: &Path) -> ExportFormat {
        asked.unwrap_or_else(|| {
            let json = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"));
            if json {
                ExportFormat::Json
            } else {
                ExportFormat::Text
            }
        })
    }
}

impl BookCommand {
    fn rules(&self) -> Rules {
        match self {
            BookCommand::Build { rules, .. }
            | BookCommand::Export { rules, .. }
            | BookCommand::Import { rules, .. }
            | BookCommand::Merge { rules, .. }
            | BookCommand::Openings { rules, .. } => rules.rules(),
        }
    }
}

/// Reads a whole book in either form (see [`Book::open_any`]).
pub fn read_any(path: &Path, rules: BookRules) -> Result<BookContents> {
    Ok(Book::open_any(path, rules)?.contents())
}

/// What a turn from a position is proven to be for the side playing it, when known.
pub type ProvenTurn = Box<dyn Fn(&Position, Turn) -> Option<String>>;

/// Runs a `vato book` job, writing its report to `out`. `proven_turns` reads the proof
/// store (the folder given, else the default one) for the rules given, for the opening
/// base's marks: the book sits below the solver, so the caller reads it.
pub fn run_cli(
    command: BookCommand,
    proven_turns: impl Fn(&Rules, Option<&Path>) -> Result<Option<ProvenTurn>>,
    out: &mut impl Write,
) -> Result<()> {
    let rules = command.rules();
    let book_rules = BookRules::of(&rules);
    match command {
        BookCommand::Build {
            out: path,
            fen,
            depth,
            lines,
            margin,
            plies,
            positions,
            threads,
            shard,
            hash,
            hand_written,
            eval_file,
            tables,
            ..
        } => {
            let root = match fen {
                Some(text) => parse_position_on(rules.board, &text).context("bad --fen")?,
                None => rules.start(),
            };
            let network = if rules.board == Board::Tsivy {
                crate::engine::nnue::chosen(hand_written, eval_file.as_deref())?
            } else {
                None
            };
            let tablebase = match tables {
                None => None,
                Some(dir) => Some(Arc::new(crate::tablebase::Tablebase::open(
                    &dir,
                    rules,
                    crate::tablebase::MAX_STONES,
                )?)),
            };
            let settings = BuildSettings {
                root,
                rules,
                depth,
                lines,
                margin,
                plies,
                max_positions: positions,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                shard,
                hash_mb: hash,
                network,
                tablebase,
            };
            let journal_path = journal_path(&path);
            let (mut journal, loaded) = Journal::open(&journal_path, rules.board, depth, lines)?;
            if !loaded.searched.is_empty() || loaded.dropped > 0 {
                eprintln!(
                    "{}: {} searched positions reused, {} lines of other settings or damaged skipped",
                    journal_path.display(),
                    loaded.searched.len(),
                    loaded.dropped
                );
            }
            let stop = stop_on_ctrl_c("the searches under way finish and the book is written")?;
            let started = Instant::now();
            let mut bar = JobProgress::new("book", 1, "positions", Some(PLAIN_EVERY));
            let built = build(
                &settings,
                loaded.searched,
                &mut journal,
                &stop,
                &mut |done, waiting| {
                    bar.set_total((done + waiting) as u64);
                    bar.set(done as u64);
                },
            )?;
            bar.finish();
            write_atomically(&path, &encode(&built.contents))?;
            let minutes = started.elapsed().as_secs_f64() / 60.0;
            writeln!(
                out,
                "{} positions, {} turns in {}: {} searched in {:.1} min ({:.0} a minute), {} from the journal{}",
                built.contents.positions.len(),
                built.contents.turn_count(),
                path.display(),
                built.searched,
                minutes,
                built.searched as f64 / minutes.max(1e-9),
                built.reused,
                if built.cut_short {
                    "; cut short: run the same command again to go on"
                } else {
                    ""
                }
            )?;
        }
        BookCommand::Export {
            book,
            text,
            format,
            store,
            ..
        } => {
            let contents = read_any(&book, book_rules)?;
            let unreachable = match ExportFormat::for_file(format, &text) {
                ExportFormat::Text => {
                    let (written, unreachable) = write_text(&contents);
                    write_atomically(&text, written.as_bytes())?;
                    writeln!(
                        out,
                        "{} positions written to {}",
                        contents.positions.len() - unreachable,
                        text.display()
                    )?;
                    unreachable
                }
                ExportFormat::Json => {
                    let net = format!("vato {}", env!("CARGO_PKG_VERSION"));
                    let proven = proven_turns(&rules, store.as_deref())?;
                    let base = write_web_json(&contents, &net, |position, turn| {
                        proven.as_ref()?(position, turn)
                    });
                    write_atomically(&text, base.json.as_bytes())?;
                    writeln!(
                        out,
                        "{} positions written to {} as {} nodes (one per path from the start)",
                        base.positions,
                        text.display(),
                        base.nodes
                    )?;
                    base.unreachable
                }
            };
            if unreachable > 0 {
                writeln!(
                    out,
                    "{unreachable} positions left out: no book turns lead to them from the start"
                )?;
            }
        }
        BookCommand::Import { text, book, .. } => {
            let contents = read_any(&text, book_rules)?;
            write_atomically(&book, &encode(&contents))?;
            writeln!(
                out,
                "{} positions, {} turns written to {}",
                contents.positions.len(),
                contents.turn_count(),
                book.display()
            )?;
        }
        BookCommand::Merge {
            out: path, books, ..
        } => {
            let mut merged = BookContents::new(book_rules);
            for book in &books {
                merged.merge(read_any(book, book_rules)?);
            }
            write_atomically(&path, &encode(&merged))?;
            writeln!(
                out,
                "{} positions, {} turns from {} books written to {}",
                merged.positions.len(),
                merged.turn_count(),
                books.len(),
                path.display()
            )?;
        }
        BookCommand::Openings {
            book,
            plies,
            low,
            high,
            ..
        } => {
            let contents = read_any(&book, book_rules)?;
            let suite = opening_suite(&contents, plies, low, high);
            for opening in &suite {
                writeln!(out, "{}", opening.line())?;
            }
            eprintln!(
                "{} openings {plies} turns in, one side ahead by {low} to {high} centi-stones",
                suite.len()
            );
        }
    }
    out.flush()?;
    Ok(())
}

/// Where the build of `book` keeps its journal.
pub fn journal_path(book: &Path) -> PathBuf {
    let mut name = book.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}
