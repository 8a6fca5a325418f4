//! The protocol session: reads commands, keeps the game and the options, runs searches on
//! their own thread and writes every answer as one flushed line.

mod book;
mod proof;
mod telo;

use crate::book::{Book, BookTurn};
use crate::echo::{MAX_MESSAGE_CHARS, printable};
use crate::engine::evaluate::{evaluate, terms};
use crate::engine::nnue::Network;
use crate::engine::search::{
    Limits, Outcome, Report, Score, SearchRequest, Signals, TABLEBASE_WIN, is_decided_win,
    proven_win_score, search, tablebase_score,
};
use crate::engine::skill;
use crate::engine::timeman::Clock;
use crate::engine::tt::TranspositionTable;
use crate::engine::wdl::wdl;
use crate::protocol::options::{Change, DEFAULT_TABLEBASE_PATH, EMBEDDED_NET, EngineOptions};
use crate::protocol::parser::{Command, GoParams, Query, parse_command};
use crate::random::Rng;
use crate::rules::TurnRules;
use crate::rules::board::Board;
use crate::rules::diagram::draw;
use crate::rules::fen::parse_position_on;
use crate::rules::game::{DrawReason, Game, Status, WinReason};
use crate::rules::notation::{
    parse_turn, parse_turn_prefix, routes_under, smallest_spellings, spell_turn, spelled_turns,
};
use crate::rules::perft::perft_report;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::rules::variant::Variant;
use crate::solve::{
    Budget, Certificate, MappedStore, Method, ProofFile, Proven, StoredResults, default_store_dir,
    solve_on_own_stack,
};
use crate::tablebase::{Tablebase, Value as TablebaseValue, default_dir, layer_names};
use crate::timestamp::log_timestamp;
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

/// Where protocol lines go: standard output (or a test's buffer) and, when the
/// `Debug Log File` option names one, a time-stamped log of every line in and out.
pub struct Output {
    inner: Mutex<OutputInner>,
}

struct OutputInner {
    writer: Box<dyn Write + Send>,
    log: Option<File>,
}

impl Output {
    /// Output to `writer`.
    pub fn new(writer: Box<dyn Write + Send>) -> Arc<Output> {
        Arc::new(Output {
            inner: Mutex::new(OutputInner { writer, log: None }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, OutputInner> {
        // A thread that panicked while holding the lock left whole lines behind: go on.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one line and flushes it. A closed output is not an error worth dying for:
    /// the session goes on until its input ends.
    pub fn line(&self, text: &str) {
        self.lines([text]);
    }

    /// Writes several lines as one block, so that a search thread's `info` lines cannot
    /// land between them (`d` and `eval` answer while a search runs).
    pub fn lines<T: AsRef<str>>(&self, texts: impl IntoIterator<Item = T>) {
        let mut inner = self.lock();
        for text in texts {
            let text = text.as_ref();
            let _ = writeln!(inner.writer, "{text}");
            log_line(&mut inner.log, "<<", text);
        }
        let _ = inner.writer.flush();
    }

    /// Records an input line in the log.
    pub fn log_input(&self, text: &str) {
        log_line(&mut self.lock().log, ">>", text);
    }

    /// Starts logging to `path` (appending), or stops when `path` is empty.
    pub fn set_log(&self, path: &str) -> std::io::Result<()> {
        let file = if path.is_empty() {
            None
        } else {
            Some(OpenOptions::new().create(true).append(true).open(path)?)
        };
        self.lock().log = file;
        Ok(())
    }
}

fn log_line(log: &mut Option<File>, direction: &str, text: &str) {
    if let Some(file) = log {
        let _ = writeln!(
            file,
            "{} {direction} {text}",
            log_timestamp(SystemTime::now())
        );
        let _ = file.flush();
    }
}

/// Whether the session goes on after a line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit`: stop.
    Quit,
}

/// How long each piece of work that ends by itself may still run after the end of input.
pub const END_OF_INPUT_GRACE: Duration = Duration::from_secs(10);

/// Called by a search or task thread once its last line is written, so that the commands
/// waiting for it can go on without waiting for the next input line.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A search, or a `perft` or `bench`, running on its own thread so that the session keeps
/// answering `isready` and can stop it.
struct RunningSearch {
    /// What runs, for the busy error: "a search", "perft" or "bench".
    task: &'static str,
    signals: Arc<Signals>,
    /// Whether the search ends by itself (a depth, node, time or clock limit, not
    /// `infinite` or `ponder`): then the commands that change the state wait for it, and
    /// the end of input lets it finish.
    ends_by_itself: bool,
    /// Set by the search thread just before it writes `bestmove`.
    finished: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// One engine session: the game, the options and at most one running search.
pub struct Session {
    out: Arc<Output>,
    options: EngineOptions,
    game: Game,
    search: Option<RunningSearch>,
    /// The search's table, kept between searches, sized by `Hash`.
    tt: Arc<TranspositionTable>,
    /// Endgame tables from `TablebasePath`, probed at the root and lent to every search.
    tablebase: Option<Arc<Tablebase>>,
    /// The board whose tables were last read (or looked for) from `TablebasePath`.
    tablebase_board: Board,
    /// The network read from `EvalFile` (the built-in one by default).
    network: Arc<Network>,
    /// The Telo game, while `Variant` is `telo` (and only then).
    telo: Option<telo::TeloState>,
    /// The opening book `BookFile` names, once `OwnBook` or `book` needed it.
    book: Option<Arc<Book>>,
    /// The default proof store as read for the rules and the tables in use (their most
    /// stones) when the book last needed it; `None` inside when there is none they serve.
    proof_store: Option<(crate::rules::Rules, usize, Option<Arc<MappedStore>>)>,
    /// The proof `ProofFile` names, if any.
    proof: Option<Arc<Certificate>>,
    /// The protocol the last `uci` or `ugi` opened; none until one of them comes.
    dialect: Dialect,
    debug: bool,
    /// Commands read while work that ends by itself was running, in the order read: they
    /// are carried out once it has ended, as if sent after its last line.
    waiting: VecDeque<Command>,
    /// Told when a search or task has written its last line.
    waker: Option<Waker>,
}

/// The protocol a session speaks, named by its opening `uci` or `ugi`. UCI and UGI differ
/// in one answer: UGI (as its match runners implement it) has no pondering, and its runners
/// read `bestmove` as exactly two words, so a UGI session never adds `ponder ...`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dialect {
    /// Neither `uci` nor `ugi` came: a person at a terminal, or the Fanorona web
    /// interface, which never sends one. Answers as UCI, but for the scores of decided
    /// positions that are not mates (see [`interface_centi`]).
    Bare,
    Uci,
    Ugi,
}

const HELP: &[&str] = &[
    "Vato speaks UCI (and UGI). Commands:",
    "  uci | ugi                      identify, list options, end with uciok | ugiok",
    "  isready                        answer readyok",
    "  setoption name N [value V]     set an option (names are case-insensitive)",
    "  ucinewgame | uginewgame        forget the last game",
    "  position startpos|fen F [moves T...]   set the position and the game so far",
    "  go [wtime btime winc binc movestogo depth nodes movetime infinite ponder searchmoves]",
    "  stop | ponderhit | quit        steer or end the search / the engine",
    "  query gameover|p1turn|result   UGI queries about the game",
    "  d | fen | moves [prefix] | status | perft N [divide] | eval | flip | bench [depth] | help",
    "  book                           the opening book's turns for the position",
    "  solve [seconds]                prove the position won, drawn or lost (stop ends it)",
    "  debug on|off                   extra diagnostics as info strings",
    "Lines starting with # are comments.",
];

impl Session {
    /// A session writing to `out`, at the start position with default options.
    pub fn new(out: Arc<Output>) -> Session {
        let options = EngineOptions::default();
        Session {
            game: Game::new(Position::start(), options.rules()),
            out,
            tt: Arc::new(TranspositionTable::new(options.hash_mb as usize)),
            options,
            search: None,
            tablebase: None,
            tablebase_board: Board::Tsivy,
            network: crate::engine::nnue::embedded(),
            telo: None,
            book: None,
            proof_store: None,
            proof: None,
            dialect: Dialect::Bare,
            debug: false,
            waiting: VecDeque::new(),
            waker: None,
        }
    }

    /// Sets what a search or task thread calls once its last line is written.
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = Some(waker);
    }

    fn say(&self, text: &str) {
        self.out.line(text);
    }

    fn error(&self, text: &str) {
        self.say(&error_line(text));
    }

    /// A refused `position`: `info string illegal move ...` or `info string invalid fen
    /// ...`, the forms the Fanorona web interface recognises, escaped and capped like
    /// every error line.
    fn refuse_position(&self, text: &str) {
        self.say(&format!(
            "info string {}",
            printable(text, MAX_MESSAGE_CHARS)
        ));
    }

    fn searching(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|s| !s.finished.load(Ordering::SeqCst))
    }

    /// Whether work that ends by itself is running: the commands that change the state
    /// wait for it.
    fn running_to_its_end(&self) -> bool {
        self.searching() && self.search.as_ref().is_some_and(|s| s.ends_by_itself)
    }

    /// Waits for the search thread to end (it ends by itself or after `stop`).
    fn join_search(&mut self) {
        if let Some(search) = self.search.take() {
            let _ = search.thread.join();
        }
    }

    /// Stops any search and waits for its `bestmove`.
    pub fn shutdown(&mut self) {
        if let Some(search) = &self.search {
            search.signals.stop();
        }
        self.join_search();
    }

    /// At the end of input: each piece of work that ends by itself (a search with a limit,
    /// `perft`, `bench`, `solve` with seconds), the running one and each that the waiting
    /// commands start, gets [`END_OF_INPUT_GRACE`] to finish and answer, so that piped
    /// commands get their whole answer while a mistyped depth cannot keep the process alive
    /// for long; then, like an `infinite` or `ponder` search at once, it is stopped.
    pub fn finish(&mut self) {
        loop {
            let deadline = Instant::now() + END_OF_INPUT_GRACE;
            while self.running_to_its_end() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.shutdown();
            if self.waiting.is_empty() {
                return;
            }
            self.resume();
        }
    }

    /// Handles one input line.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        self.out.log_input(line);
        match parse_command(line) {
            Ok(command) => self.accept(command),
            Err(e) => {
                self.error(&e.to_string());
                Flow::Continue
            }
        }
    }

    /// Takes a command in the order read. While work that ends by itself runs, or commands
    /// already wait for it, a command that does not steer the work waits too (a command that
    /// only reads the state is answered at once when nothing waits before it); the others
    /// are carried out now.
    fn accept(&mut self, command: Command) -> Flow {
        // The work may have ended since the last line: what waited for it goes first.
        self.resume();
        let queued = !self.waiting.is_empty();
        if (self.running_to_its_end() || queued)
            && !command.steers()
            && (queued || !command.reads_only())
        {
            self.waiting.push_back(command);
            return Flow::Continue;
        }
        let flow = self.execute(command);
        if flow == Flow::Continue {
            self.resume();
        }
        flow
    }

    /// Carries out the waiting commands, in order, while no work that ends by itself runs.
    /// A search that only `stop` ends (`infinite`, `ponder`) does not hold them: they are
    /// carried out as if typed then, and the ones that would change the state are refused
    /// as busy.
    pub fn resume(&mut self) {
        while !self.running_to_its_end() {
            let Some(command) = self.waiting.pop_front() else {
                return;
            };
            // `quit` never waits, so the session cannot end here.
            self.execute(command);
        }
    }

    /// After `quit`: every waiting command is carried out, and the work each starts is
    /// stopped at once, so that every accepted `go` still gets its `bestmove`.
    fn answer_waiting_at_once(&mut self) {
        while let Some(command) = self.waiting.pop_front() {
            self.execute(command);
            self.shutdown();
        }
    }

    /// Carries out one command now.
    fn execute(&mut self, command: Command) -> Flow {
        let always_allowed = command.reads_only()
            || matches!(
                command,
                Command::Stop | Command::PonderHit | Command::Quit | Command::Debug(_)
            );
        if let Some(running) = self.search.as_ref().filter(|_| self.searching())
            && !always_allowed
        {
            self.error(&format!(
                "busy: {} is running; send 'stop' first",
                running.task
            ));
            return Flow::Continue;
        }
        if !self.searching() {
            self.join_search();
        }
        let Some(command) = self.telo_command(command) else {
            return Flow::Continue;
        };
        match command {
            Command::Hello { ugi } => {
                self.dialect = if ugi { Dialect::Ugi } else { Dialect::Uci };
                self.hello(ugi)
            }
            Command::IsReady => self.say("readyok"),
            Command::Debug(on) => self.debug = on.unwrap_or(!self.debug),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::NewGame => {
                self.game = Game::new(self.start_position(), self.options.rules());
                self.tt.clear();
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::Go(params) => self.go(&params),
            // Waiting for the bestmove makes the next command meet an idle engine, as a
            // GUI that sends `stop` then `position` expects.
            Command::Stop => self.shutdown(),
            Command::PonderHit => {
                if let Some(search) = &self.search {
                    search.signals.ponderhit();
                }
            }
            Command::Quit => {
                self.shutdown();
                self.answer_waiting_at_once();
                return Flow::Quit;
            }
            Command::Query(query) => self.query(query),
            Command::Display => self.display(),
            Command::Fen => self.say(&self.game.position().to_string()),
            Command::Moves(prefix) => self.list_moves(prefix.as_deref()),
            Command::Status => self.say(&format!("status {}", status_word(self.game.status()))),
            Command::Perft { depth, divide } => {
                let rule = self.game.rules().turn_rules();
                let position = *self.game.position();
                self.start_task("perft", true, move |signals| {
                    match perft_report(&position, depth, divide, rule, 1, signals.stop_flag()) {
                        Some((report, _)) => report.lines().map(String::from).collect(),
                        None => vec!["info string perft stopped".into()],
                    }
                });
            }
            Command::Eval => self.eval(),
            Command::Book => self.list_book(),
            Command::Solve(seconds) => {
                let (position, rules) = (*self.game.position(), *self.game.rules());
                let tables = self.tables_in_use();
                self.start_task("solve", seconds.is_some(), move |signals| {
                    vec![solve_line(
                        &position,
                        rules,
                        tables.as_deref(),
                        seconds,
                        signals,
                    )]
                });
            }
            Command::Flip => {
                self.game = Game::new(self.game.position().flip(), self.options.rules());
            }
            Command::Bench(depth) => {
                let (network, board) = (self.network_in_use(), self.board());
                self.start_task("bench", true, move |signals| {
                    crate::engine::bench::run_until(depth, board, network, None, signals)
                        .unwrap_or_else(|| vec!["info string bench stopped".into()])
                });
            }
            Command::Help => self.out.lines(HELP.iter().copied()),
            Command::Nothing => {}
        }
        Flow::Continue
    }

    /// Runs `task` on its own thread like a search: the session answers `isready`
    /// meanwhile, and `stop`, `quit` or the end of input stop it through its signals. While
    /// a task that `ends_by_itself` runs, other commands wait for it; while another runs,
    /// they are refused as busy. `job` returns the lines to print.
    fn start_task(
        &mut self,
        task: &'static str,
        ends_by_itself: bool,
        job: impl FnOnce(&Signals) -> Vec<String> + Send + 'static,
    ) {
        let signals = Arc::new(Signals::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let thread = {
            let (signals, finished, out) = (signals.clone(), finished.clone(), self.out.clone());
            let waker = self.waker.clone();
            std::thread::Builder::new()
                .name(task.into())
                .spawn(move || {
                    let lines = job(&signals);
                    // Idle before the answer, as after a search's `bestmove`: a command
                    // sent on reading the answer must not be refused as busy.
                    finished.store(true, Ordering::SeqCst);
                    out.lines(&lines);
                    if let Some(wake) = waker {
                        wake();
                    }
                })
        };
        match thread {
            Ok(thread) => {
                self.search = Some(RunningSearch {
                    task,
                    signals,
                    ends_by_itself,
                    finished,
                    thread,
                })
            }
            Err(e) => self.error(&format!("{task}: cannot start its thread: {e}")),
        }
    }

    fn hello(&self, ugi: bool) {
        self.say(&format!("id name Vato {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the Vato developers");
        for line in EngineOptions::declarations() {
            self.say(&line);
        }
        self.say(if ugi { "ugiok" } else { "uciok" });
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let before = self.options.clone();
        match self.options.set(name, value) {
            Err(e) => self.error(&e),
            Ok(Change::Rules) => {
                self.game.set_rules(self.options.rules());
                if let Some(telo) = &mut self.telo {
                    telo.game.set_limit(self.options.no_capture_limit);
                }
                self.open_tablebase();
            }
            Ok(Change::TablebasePath) => {
                let path = self.options.tablebase_path.clone();
                if !path.is_empty()
                    && path != DEFAULT_TABLEBASE_PATH
                    && !std::path::Path::new(&path).is_dir()
                {
                    self.options = before;
                    self.error(&format!(
                        "option 'TablebasePath': '{path}' is not a directory"
                    ));
                } else {
                    self.open_tablebase();
                }
            }
            Ok(Change::DebugLogFile) => {
                if let Err(e) = self.out.set_log(&self.options.debug_log_file) {
                    let path = self.options.debug_log_file.clone();
                    self.options = before;
                    self.error(&format!("cannot open debug log file '{path}': {e}"));
                }
            }
            Ok(Change::Hash) => {
                // Free the old table before allocating the new one; if the new one cannot
                // be had, go back to the old size.
                let old_mb = before.hash_mb as usize;
                self.tt = Arc::new(TranspositionTable::new(1));
                match TranspositionTable::try_new(self.options.hash_mb as usize) {
                    Ok(tt) => self.tt = Arc::new(tt),
                    Err(_) => {
                        let wanted = self.options.hash_mb;
                        self.options = before;
                        self.tt = Arc::new(
                            TranspositionTable::try_new(old_mb)
                                .unwrap_or_else(|_| TranspositionTable::new(1)),
                        );
                        self.error(&format!(
                            "option 'Hash': cannot allocate {wanted} MiB; kept {old_mb} MiB"
                        ));
                    }
                }
            }
            Ok(Change::ClearHash) => self.tt.clear(),
            Ok(Change::EvalFile) => {
                let file = self.options.eval_file.clone();
                if file == EMBEDDED_NET {
                    self.network = crate::engine::nnue::embedded();
                } else {
                    match Network::load(std::path::Path::new(&file)) {
                        Ok(network) => {
                            self.say(&format!(
                                "info string network: {} ({} positions, {} epochs)",
                                printable(&file, MAX_MESSAGE_CHARS),
                                network.summary().positions,
                                network.summary().epochs
                            ));
                            self.network = Arc::new(network);
                        }
                        Err(e) => {
                            self.options = before;
                            self.error(&format!(
                                "option 'EvalFile': {}; kept the network in use",
                                printable(&format!("{e:#}"), MAX_MESSAGE_CHARS)
                            ));
                        }
                    }
                }
            }
            Ok(Change::Game) => {
                self.game = Game::new(self.start_position(), self.options.rules());
                self.tt.clear();
                self.telo = (self.options.variant == Variant::Telo)
                    .then(|| telo::TeloState::new(self.options.no_capture_limit));
                // Each board has its own tables; Telo, which has none, keeps what is read.
                if self.options.variant != Variant::Telo && self.tablebase_board != self.board() {
                    self.open_tablebase();
                }
            }
            Ok(Change::Book) => {
                let file_changed = self.options.book_file != before.book_file;
                if self.options.own_book && (file_changed || self.book.is_none()) {
                    if let Err(e) = self.read_book() {
                        let name = if file_changed { "BookFile" } else { "OwnBook" };
                        self.options = before;
                        self.error(&format!("option '{name}': {e}; the book in use is kept"));
                    }
                } else if file_changed {
                    // Read when it is next needed.
                    self.book = None;
                }
            }
            Ok(Change::Proof) => {
                if self.options.proof_file.is_empty() {
                    self.proof = None;
                } else {
                    let file = self.options.proof_file.clone();
                    match self.read_proof_file(std::path::Path::new(&file)) {
                        Ok(certificate) => {
                            let file = printable(&file, MAX_MESSAGE_CHARS);
                            self.say(&proof::describe(&certificate, &file));
                            self.proof = Some(Arc::new(certificate));
                        }
                        Err(e) => {
                            self.options = before;
                            self.error(&format!(
                                "option 'ProofFile': {}; the proof in use is kept",
                                printable(&format!("{e:#}"), MAX_MESSAGE_CHARS)
                            ));
                        }
                    }
                }
            }
            Ok(Change::Other) => {}
        }
    }

    /// Reads the book `BookFile` names and says which it is.
    fn read_book(&mut self) -> Result<(), String> {
        let book = book::load(&self.options.book_file, &self.options.rules())
            .map_err(|e| printable(&format!("{e:#}"), MAX_MESSAGE_CHARS))?;
        self.say(&format!(
            "info string book: {} ({} positions, for {})",
            printable(book.name(), MAX_MESSAGE_CHARS),
            book.positions(),
            book.rules()
        ));
        self.book = Some(Arc::new(book));
        Ok(())
    }

    /// The book's choice at the root: `OwnBook` on, within `BookDepth` plies of the start,
    /// the position in a book made for the game's rules, and the turn among `searchmoves`,
    /// never one the proof store proves lost.
    fn book_choice(&mut self, searchmoves: &[Turn]) -> Option<(Turn, BookTurn)> {
        let position = *self.game.position();
        if !self.options.own_book || book::game_ply(&position) >= self.options.book_depth {
            return None;
        }
        let store = self.proof_store();
        let lost = |turn: Turn| {
            store
                .as_ref()
                .is_some_and(|store| store.proven_after(&position, turn) == Some(Proven::Loss))
        };
        let unit = Rng::new(clock_seed()).next_unit();
        book::book_turn(
            self.book.as_ref()?,
            &position,
            self.game.rules(),
            searchmoves,
            lost,
            self.options.book_variety,
            unit,
        )
    }

    /// The default proof store (see [`read_proof_store`]), read again only when the rules
    /// or the tables in use have changed.
    fn proof_store(&mut self) -> Option<Arc<MappedStore>> {
        let rules = *self.game.rules();
        let tables = self.tables_in_use();
        let stones = tables.as_ref().map_or(0, |t| t.max_stones());
        match &self.proof_store {
            Some((read_for, read_with, store)) if (*read_for, *read_with) == (rules, stones) => {
                store.clone()
            }
            _ => {
                let store = read_proof_store(&rules, tables.as_deref()).map(Arc::new);
                self.proof_store = Some((rules, stones, store.clone()));
                store
            }
        }
    }

    /// `book`: the book's turns for the current position, one line each.
    fn list_book(&mut self) {
        if self.book.is_none()
            && let Err(e) = self.read_book()
        {
            return self.error(&format!("book: {e}"));
        }
        let Some(book) = self.book.clone() else {
            return;
        };
        let position = *self.game.position();
        let rules = *self.game.rules();
        match book::turns_for(&book, &position, &rules) {
            Err(why) => self.say(&format!("book none: {why}")),
            Ok(turns) if turns.is_empty() => self.say("book none: the position is not in the book"),
            Ok(turns) => {
                let store = self.proof_store();
                let proven = |t: &BookTurn| -> String {
                    let Some(store) = &store else {
                        return String::new();
                    };
                    parse_turn(&position, rules.turn_rules(), &t.turn)
                        .ok()
                        .and_then(|turn| store.proven_after(&position, turn))
                        .map(|proven| format!(" proven {proven}"))
                        .unwrap_or_default()
                };
                self.out
                    .lines(turns.iter().map(|t| format!("book {t}{}", proven(t))));
            }
        }
    }

    /// The board of the game played.
    fn board(&self) -> Board {
        self.options.variant.board().unwrap_or_default()
    }

    /// The start of the game played: in a vela game the favoured side moves first.
    fn start_position(&self) -> Position {
        self.options.rules().start()
    }

    /// The network, when the options ask for it and it knows the board: it was trained on
    /// Tsivy's 9 x 5 games, so Dimy is evaluated by the hand-written terms.
    fn network_in_use(&self) -> Option<Arc<Network>> {
        (self.options.use_nnue && self.board() == Board::Tsivy).then(|| self.network.clone())
    }

    /// The endgame tables, when they are the current board's and the game is not a vela
    /// game (whose first phase has rules of its own).
    fn tables_in_use(&self) -> Option<Arc<Tablebase>> {
        self.tablebase.clone().filter(|tables| {
            tables.board() == self.board()
                && self.options.variant != Variant::Telo
                && self.options.rules().vela.is_none()
        })
    }

    /// The folder of the tables to use: `TablebasePath`, or for `<default>` the default
    /// folder when it exists; `None` for none (an empty path switches the tables off).
    fn tablebase_dir(&self) -> Option<std::path::PathBuf> {
        match self.options.tablebase_path.as_str() {
            "" => None,
            DEFAULT_TABLEBASE_PATH => default_dir().filter(|dir| dir.is_dir()),
            path => Some(path.into()),
        }
    }

    /// The proof in `file`, in full: a compact one is read back with the layers of
    /// `TablebasePath` it rests on, which checks it.
    fn read_proof_file(&self, file: &std::path::Path) -> anyhow::Result<Certificate> {
        let proof = ProofFile::read(file)?;
        let stones = match &proof {
            ProofFile::Compact(compact) => compact.table_stones,
            ProofFile::Full(_) => 0,
        };
        let tables = match (stones, self.tablebase_dir()) {
            (0, _) | (_, None) => None,
            (_, Some(dir)) => Some(Tablebase::open(&dir, proof.rules(), stones.into())?),
        };
        proof.into_full(tables.as_ref())
    }

    /// (Re)opens the tables for the current path and rules, and says what was found: for
    /// the default folder, only when it holds tables.
    fn open_tablebase(&mut self) {
        self.tablebase = None;
        self.tablebase_board = self.board();
        let Some(dir) = self.tablebase_dir() else {
            return;
        };
        let by_default = self.options.tablebase_path == DEFAULT_TABLEBASE_PATH;
        let path = dir.display().to_string();
        let started = std::time::Instant::now();
        let stones = self.options.tablebase_stones as usize;
        match Tablebase::open(&dir, self.options.rules(), stones) {
            Ok(tables) if tables.layers().is_empty() => {
                for line in tables.refused() {
                    let line = printable(line, MAX_MESSAGE_CHARS);
                    self.say(&format!("info string tablebase: refused: {line}"));
                }
                if !by_default {
                    let path = printable(&path, MAX_MESSAGE_CHARS);
                    self.say(&format!("info string tablebase: no tables in '{path}'"));
                }
            }
            Ok(tables) => {
                let missing = tables.missing();
                let gaps = if missing.is_empty() {
                    String::new()
                } else {
                    printable(
                        &format!(" (incomplete: {} missing)", layer_names(&missing)),
                        MAX_MESSAGE_CHARS,
                    )
                };
                for line in tables.refused() {
                    let line = printable(line, MAX_MESSAGE_CHARS);
                    self.say(&format!("info string tablebase: refused: {line}"));
                }
                let place = printable(&path, MAX_MESSAGE_CHARS);
                self.say(&format!(
                    "info string tablebase: {} layers, up to {} stones{gaps}, in '{place}', \
                     opened in {:.1} ms",
                    tables.layers().len(),
                    tables.max_stones(),
                    started.elapsed().as_secs_f64() * 1000.0
                ));
                self.tablebase = Some(Arc::new(tables));
            }
            Err(e) => {
                let why = printable(&format!("{e:#}"), MAX_MESSAGE_CHARS);
                self.say(&format!("info string tablebase not used: {why}"));
            }
        }
    }

    /// The tables' answer at the root: the turns (among `searchmoves`) ranked by their
    /// values and distances, best first, as many as `lines` asks, when every turn's child is
    /// in the tables and the best value holds within the no-capture limit (the distances
    /// know nothing of that limit, so a longer win is left to the search).
    fn tablebase_lines(&self, searchmoves: &[Turn], lines: usize) -> Option<TablebaseLines> {
        let position = *self.game.position();
        let rule = self.game.rules().chain_rule;
        let limit = self.game.rules().no_capture_limit;
        let choices = self.tables_in_use()?.probe_turns(&position)?;
        let ranked: TablebaseLines = choices
            .into_iter()
            .filter_map(|(text, value)| {
                let turn = parse_turn(&position, rule, &text).ok()?;
                (searchmoves.is_empty() || searchmoves.contains(&turn)).then_some((turn, value))
            })
            .take(lines.max(1))
            .collect();
        let (_, best) = ranked.first()?;
        best.holds_within(position.turns_since_capture(), limit)
            .then_some(ranked)
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let start = match fen {
            None => self.start_position(),
            Some(text) => match parse_position_on(self.board(), text) {
                Ok(position) => position,
                Err(e) => {
                    return self.refuse_position(&format!(
                        "invalid fen '{text}': {e}; position unchanged"
                    ));
                }
            },
        };
        let mut game = Game::new(start, self.options.rules());
        for (index, text) in moves.iter().enumerate() {
            if game.status().is_over() {
                let why = format!(
                    "it comes after the end of the game ({})",
                    describe_status(game.status())
                );
                return self.refuse_position(&illegal_move(text, index, &why));
            }
            if let Err(e) = game.play_text(text) {
                return self.refuse_position(&illegal_move(text, index, &e));
            }
        }
        self.game = game;
    }

    fn limits(&self, params: &GoParams) -> Result<Limits, String> {
        let position = self.game.position();
        let rule = self.game.rules().turn_rules();
        let searchmoves = params
            .searchmoves
            .iter()
            .map(|text| {
                parse_turn(position, rule, text)
                    .map_err(|e| format!("go: searchmoves '{text}' is illegal: {e}"))
            })
            .collect::<Result<Vec<Turn>, String>>()?;
        let (time, increment) = match position.side_to_move() {
            Color::White => (params.wtime, params.winc),
            Color::Black => (params.btime, params.binc),
        };
        // A clock given for the other side only: ours is taken as empty, so that the
        // search answers at once rather than never.
        let clocks_given = params.wtime.is_some() || params.btime.is_some();
        let time = time.or(clocks_given.then_some(0));
        Ok(Limits {
            depth: params.depth,
            nodes: params.nodes,
            movetime: params.movetime.map(Duration::from_millis),
            clock: time.map(|time| Clock {
                time: Duration::from_millis(time),
                increment: Duration::from_millis(increment.unwrap_or(0)),
                moves_to_go: params.movestogo,
            }),
            infinite: params.infinite,
            searchmoves,
        })
    }

    fn go(&mut self, params: &GoParams) {
        let limits = match self.limits(params) {
            Ok(limits) => limits,
            Err(e) => return self.error(&e),
        };
        // A decided game has nothing to search: its answer is `bestmove (none)`, given
        // like any other (after `stop` for infinite and ponder searches).
        let decided = matches!(self.game.status(), Status::Won { .. });
        let from_tables = if decided {
            None
        } else {
            self.tablebase_lines(&limits.searchmoves, self.options.multipv as usize)
        };
        // A proof's turn: the ProofFile's, else the default proof store's at full
        // strength (a proven turn is never worse than the search's, which still replaces
        // a draw's turn when it finds a win; a weakened level plays its own turns).
        let full_strength = self.options.effective_skill() >= skill::FULL_STRENGTH;
        let proven = if decided || from_tables.is_some() {
            None
        } else if let Some(certificate) = &self.proof {
            proof::proven_turn(
                certificate,
                self.game.position(),
                self.game.rules(),
                &limits.searchmoves,
            )
        } else if full_strength {
            self.proof_store().and_then(|store| {
                proof::stored_turn(
                    &*store,
                    self.game.position(),
                    self.game.rules(),
                    &limits.searchmoves,
                )
            })
        } else {
            None
        };
        // The book answers real turns only: never an analysis (`infinite`) or a ponder
        // search, which wait for `stop`.
        let from_book = if decided
            || from_tables.is_some()
            || proven.is_some()
            || params.infinite
            || params.ponder
        {
            None
        } else {
            self.book_choice(&limits.searchmoves)
        };
        if self.debug {
            self.say(&format!(
                "info string debug: searching {} with {:?}",
                self.game.position(),
                limits
            ));
        }
        // A weakened level caps the depth and scores several lines to draw its turn from.
        let level = self.options.effective_skill();
        let weakened = level < skill::FULL_STRENGTH;
        let mut limits = limits;
        let mut multipv = self.options.multipv as usize;
        if weakened {
            let cap = skill::depth_cap(level);
            limits.depth = Some(limits.depth.map_or(cap, |d| d.min(cap)));
            multipv = multipv.max(skill::LINES);
        }
        let request = SearchRequest {
            history: self.game.positions().to_vec(),
            rules: *self.game.rules(),
            limits,
            multipv,
            move_overhead: Duration::from_millis(self.options.move_overhead_ms.into()),
            threads: self.options.threads as usize,
            tt: self.tt.clone(),
            tablebase: self.tables_in_use(),
            config: self.options.search,
            network: self.network_in_use(),
        };
        let signals = Arc::new(Signals::new(params.ponder));
        let finished = Arc::new(AtomicBool::new(false));
        let wait_for_stop = params.infinite || params.ponder;
        let limits = &request.limits;
        let ends_by_itself = !wait_for_stop
            && (limits.depth.is_some()
                || limits.nodes.is_some()
                || limits.movetime.is_some()
                || limits.clock.is_some());
        let job = SearchJob {
            request,
            signals: signals.clone(),
            finished: finished.clone(),
            out: self.out.clone(),
            decided,
            from_tables,
            from_book,
            proven,
            wait_for_stop,
            show_ponder: self.options.ponder && self.dialect != Dialect::Ugi,
            interface_scores: self.dialect == Dialect::Bare,
            show_wdl: self.options.show_wdl,
            skill: weakened.then(|| (level, Rng::new(clock_seed()))),
            waker: self.waker.clone(),
        };
        // The job is handed over only once the thread exists, so that it is still here to
        // answer from if no thread can be started.
        let (hand_over, receive) = std::sync::mpsc::channel::<SearchJob>();
        let thread = std::thread::Builder::new()
            .name("search".into())
            .spawn(move || {
                if let Ok(job) = receive.recv() {
                    job.run();
                }
            });
        match thread {
            Ok(thread) => {
                // The thread holds the receiver until it has the job: the send cannot fail.
                let _ = hand_over.send(job);
                self.search = Some(RunningSearch {
                    task: "a search",
                    signals,
                    ends_by_itself,
                    finished,
                    thread,
                })
            }
            Err(e) => {
                // Every accepted `go` gets its `bestmove`: a depth-1 search here, while the
                // input waits, is the most that can be done without a thread.
                self.say(&format!(
                    "info string cannot start the search thread ({e}): searching to depth 1 on the session's thread"
                ));
                job.shallow().run();
            }
        }
    }

    fn query(&self, query: Query) {
        let white_to_move = self.game.position().side_to_move() == Color::White;
        let answer = query_answer(query, self.game.status(), white_to_move);
        self.say(&format!("response {answer}"));
    }

    fn display(&self) {
        let position = self.game.position();
        let mut lines: Vec<String> = draw(position).lines().map(String::from).collect();
        let turns = self.game.rules().turn_rules().legal_turns(position).len();
        lines.extend([
            String::new(),
            format!("Fen: {position}"),
            format!("Key: {:016X}", position.key()),
            format!("Side to move: {}", position.side_to_move().name()),
            format!("Turns since capture: {}", position.turns_since_capture()),
            format!("Move number: {}", position.move_number()),
            format!("Legal turns: {turns}"),
            format!("Status: {}", describe_status(self.game.status())),
        ]);
        self.out.lines(lines);
    }

    fn list_moves(&self, prefix: Option<&str>) {
        let position = self.game.position();
        let rule = self.game.rules().turn_rules();
        let spellings: Vec<String> = match prefix {
            None => spelled_turns(position, rule)
                .into_iter()
                .map(|(s, _)| s)
                .collect(),
            Some(text) => match parse_turn_prefix(text) {
                Err(e) => return self.error(&format!("moves: {e}")),
                Ok(prefix) => {
                    // Per turn, its smallest spelling among the routes that extend the
                    // prefix, so that a route clicked point by point stays recognisable.
                    let routes: Vec<_> = routes_under(position, rule, None)
                        .into_iter()
                        .filter(|r| prefix.fits(r))
                        .collect();
                    smallest_spellings(&routes)
                        .into_iter()
                        .map(|(s, _)| s)
                        .collect()
                }
            },
        };
        self.say(&spellings.join(" "));
    }

    fn eval(&self) {
        let position = self.game.position();
        let mut lines = vec![format!(
            "Evaluation for {} to move, in hundredths of a stone:",
            position.side_to_move().name()
        )];
        for term in terms(position) {
            lines.push(format!("  {:<14} {:>6}", term.name, term.value));
        }
        lines.push(format!("  {:<14} {:>6}", "total", evaluate(position)));
        if self.board() != Board::Tsivy {
            lines.push(
                "The search uses the hand-written total (the network knows Tsivy's board only)."
                    .to_string(),
            );
            return self.out.lines(lines);
        }
        lines.push(format!(
            "  {:<14} {:>6}",
            "network",
            self.network.evaluate(position)
        ));
        lines.push(if self.options.use_nnue {
            format!(
                "The search uses the network ({}).",
                printable(&self.options.eval_file, MAX_MESSAGE_CHARS)
            )
        } else {
            "The search uses the hand-written total (UseNNUE false).".to_string()
        });
        self.out.lines(lines);
    }
}

/// The answer to a UGI `query` about a game in `status` (every game's statuses read
/// alike).
fn query_answer(query: Query, status: Status, white_to_move: bool) -> String {
    match query {
        Query::GameOver => status.is_over().to_string(),
        Query::P1Turn => white_to_move.to_string(),
        Query::Result => match status {
            Status::Ongoing => "none".into(),
            Status::Won {
                winner: Color::White,
                ..
            } => "p1win".into(),
            Status::Won {
                winner: Color::Black,
                ..
            } => "p2win".into(),
            Status::Drawn(_) => "draw".into(),
        },
    }
}

/// The answer to `status`: `ongoing`, `white wins`, `black wins`, or `draw (<reason>)`.
fn status_word(status: Status) -> String {
    match status {
        Status::Ongoing => "ongoing".into(),
        Status::Won { winner, .. } => format!("{} wins", winner.name().to_ascii_lowercase()),
        Status::Drawn(DrawReason::Repetition) => "draw (threefold repetition)".into(),
        Status::Drawn(DrawReason::NoCaptureLimit) => "draw (no-capture limit)".into(),
    }
}

/// Everything a search thread needs to search and answer one `go`.
struct SearchJob {
    request: SearchRequest,
    signals: Arc<Signals>,
    /// Set just before `bestmove` is written.
    finished: Arc<AtomicBool>,
    out: Arc<Output>,
    /// The game is already won: answer `bestmove (none)` without searching.
    decided: bool,
    /// The turns and values the endgame tables ranked, best first, if they answer.
    from_tables: Option<TablebaseLines>,
    /// The turn the opening book chose, if it did.
    from_book: Option<(Turn, BookTurn)>,
    /// The turn a proof prescribes, if it does.
    proven: Option<proof::Proven>,
    /// `infinite` or `ponder`: hold the answer until `stop` (or `ponderhit`).
    wait_for_stop: bool,
    show_ponder: bool,
    /// `UCI_ShowWDL`.
    show_wdl: bool,
    /// Write decided scores that are not mates as the web interface reads them (see
    /// [`interface_centi`]).
    interface_scores: bool,
    /// A weakened level and the lots it draws its turn with.
    skill: Option<(u32, Rng)>,
    /// Told once `bestmove` is written.
    waker: Option<Waker>,
}

impl SearchJob {
    /// The same job cut to depth 1 on one thread, answered at once: what can still be done
    /// when no search thread can be started.
    fn shallow(&self) -> SearchJob {
        let mut request = self.request.clone();
        request.limits = Limits::to_depth(1);
        request.threads = 1;
        SearchJob {
            request,
            signals: Arc::new(Signals::new(false)),
            finished: self.finished.clone(),
            out: self.out.clone(),
            decided: self.decided,
            from_tables: self.from_tables.clone(),
            from_book: self.from_book.clone(),
            proven: self.proven,
            wait_for_stop: false,
            show_ponder: self.show_ponder,
            show_wdl: self.show_wdl,
            interface_scores: self.interface_scores,
            skill: None,
            // Run on the session's own thread: nothing to wake.
            waker: None,
        }
    }

    /// An answer found without a search (a proof's, the tables'): the line saying where it
    /// comes from, one depth-1 `info` line per scored turn (`multipv` 1, 2, ... in the
    /// order given, best first), and the outcome, which plays the first.
    fn answer_at_once(&self, root: &Position, said: &str, lines: &[(Turn, i32)]) -> Outcome {
        self.out.line(said);
        let rule = self.request.rules.turn_rules();
        for (index, &(turn, score)) in lines.iter().enumerate() {
            let report = Report {
                depth: 1,
                seldepth: 1,
                multipv: index + 1,
                score: Score::Centi(score),
                nodes: 0,
                elapsed: Duration::ZERO,
                hashfull: 0,
                tbhits: 0,
                pv: vec![turn],
            };
            self.out.line(&self.info_line(root, rule, &report));
        }
        Outcome {
            best: lines.first().map(|&(turn, _)| turn),
            ..Outcome::default()
        }
    }

    /// The `info` line of a report, in this session's score style.
    fn info_line(&self, root: &Position, rule: TurnRules, report: &Report) -> String {
        info_line(root, rule, report, self.show_wdl, self.interface_scores)
    }

    /// Searches, writes the `info` lines and then the one `bestmove`.
    fn run(self) {
        let root = *self.request.history.last().expect("history holds the root");
        let rule = self.request.rules.turn_rules();
        let outcome = if self.decided {
            Outcome::default()
        } else if let Some((turn, entry)) = &self.from_book {
            // The book's line alone, with its own score and depth: a GUI (the Fanorona web
            // interface among them) tells a book turn from a searched one by the absence
            // of an `info depth` line before `bestmove`.
            self.out.line(&format!("info string book {entry}"));
            Outcome {
                best: Some(*turn),
                ..Outcome::default()
            }
        } else if let Some(proven) = self.proven.filter(|p| p.at_once(&self.request.rules)) {
            self.answer_at_once(
                &root,
                &format!(
                    "info string proven {proven} {}",
                    spell_turn(&root, rule, proven.turn)
                ),
                &[(proven.turn, proven_win_score())],
            )
        } else if let Some(ranked) = &self.from_tables {
            let lines: Vec<(Turn, i32)> = ranked
                .iter()
                .map(|&(turn, value)| (turn, tablebase_score(value, 0)))
                .collect();
            // The best value, as the tables say it: the line GUIs and tests read.
            let best = ranked[0].1;
            self.answer_at_once(&root, &format!("info string tablebase {best}"), &lines)
        } else {
            // The scored root lines of the deepest iteration, for a weakened level.
            let mut lines: Vec<(Turn, i32)> = Vec::new();
            let mut lines_depth = 0;
            let mut outcome = search(&self.request, &self.signals, &mut |report| {
                self.out.line(&self.info_line(&root, rule, &report));
                if report.depth != lines_depth {
                    lines.clear();
                    lines_depth = report.depth;
                }
                if let Some(&turn) = report.pv.first() {
                    lines.push((turn, centi_stones(report.score)));
                }
            });
            if let Some((level, mut lots)) = self.skill.clone()
                && let Some(turn) = skill::choose(&lines, level, lots.next_unit())
                && outcome.best != Some(turn)
            {
                outcome.best = Some(turn);
                outcome.ponder = None;
            }
            // A proof's turn keeps its value: the search's is played instead only when it
            // wins by itself.
            if let Some(proven) = self.proven
                && outcome.best != Some(proven.turn)
                && !(outcome.best.is_some() && is_decided_win(outcome.score))
            {
                outcome.best = Some(proven.turn);
                outcome.ponder = None;
            }
            if let Some(proven) = self.proven {
                let spelled = spell_turn(&root, rule, proven.turn);
                let line = match outcome.best {
                    Some(best) if best != proven.turn => format!(
                        "info string proven {proven} {spelled}, but the search found a win: {}",
                        spell_turn(&root, rule, best)
                    ),
                    _ => format!("info string proven {proven} {spelled}"),
                };
                self.out.line(&line);
            }
            if outcome.threads < self.request.threads {
                self.out.line(&format!(
                    "info string only {} of {} search threads could be started",
                    outcome.threads, self.request.threads
                ));
            }
            outcome
        };
        if outcome.best.is_none() {
            // Mate 0 is the loser's score; a side to move that has already won
            // (its opponent has no stones) gets no score, only the verdict.
            if root.them().is_empty() && !root.us().is_empty() {
                self.out
                    .line("info string the game is over: the side to move has won");
            } else {
                self.out.line("info depth 0 score mate 0");
            }
        }
        // `infinite` and `ponder` keep their answer until told: UCI forbids an
        // early bestmove there.
        while self.wait_for_stop
            && !self.signals.stopped()
            && (self.request.limits.infinite || self.signals.pondering())
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        // A damaged block met on the way: its layer is no longer used, and the GUI is told.
        if let Some(tables) = &self.request.tablebase {
            for fault in tables.take_faults() {
                let fault = printable(&fault, MAX_MESSAGE_CHARS);
                self.out.line(&format!("info string tablebase: {fault}"));
            }
        }
        self.finished.store(true, Ordering::SeqCst);
        self.out
            .line(&bestmove_line(&root, rule, &outcome, self.show_ponder));
        if let Some(wake) = &self.waker {
            wake();
        }
    }
}

/// The answer of `solve`: the proved value for the side to move, a turn that keeps it,
/// the nodes and the milliseconds it took.
fn solve_line(
    position: &Position,
    rules: crate::rules::Rules,
    tables: Option<&Tablebase>,
    seconds: Option<u32>,
    signals: &Signals,
) -> String {
    let store = read_proof_store(&rules, tables);
    let budget = Budget {
        nodes: None,
        time: seconds.map(|s| Duration::from_secs(s.into())),
        stop: signals.stop_flag(),
        table_mb: SOLVE_TABLE_MB,
        strategy_mb: None,
        checkpoint: None,
        proof: false,
        threads: 1,
        method: Method::DepthFirst,
        store: store.as_ref().map(|s| s as &dyn StoredResults),
        guide: None,
        forced: None,
        fortress: Some(Budget::fortress_positions(SOLVE_TABLE_MB, None)),
        engine: None,
    };
    let solved = match solve_on_own_stack(position, rules, tables, budget) {
        Ok(solved) => solved,
        Err(e) => {
            let why = printable(&format!("{e:#}"), MAX_MESSAGE_CHARS);
            return format!("info string error solve: {why}");
        }
    };
    format!(
        "info string solve {} time {}",
        solved.summary(position, &rules),
        solved.elapsed.as_millis()
    )
}

/// The proof store of `vato solve` in its default folder, read only, when it rests on no
/// more stones of tables than the engine has: a position proved there is answered at
/// once. A store that cannot be read is said on standard error and left alone.
fn read_proof_store(
    rules: &crate::rules::Rules,
    tables: Option<&Tablebase>,
) -> Option<MappedStore> {
    let dir = default_store_dir()?;
    match MappedStore::open(&dir, rules) {
        Ok(store) if usize::from(store.table_stones()) <= tables.map_or(0, |t| t.max_stones()) => {
            Some(store)
        }
        Ok(_) => None,
        Err(e) => {
            tracing::warn!("{e:#}: solving without the proof store");
            None
        }
    }
}

/// The proof table of `solve`, in MiB.
const SOLVE_TABLE_MB: usize = 64;

/// A score as centi-stones for comparing lines: mates beyond every evaluation, nearer ones
/// further out.
fn centi_stones(score: Score) -> i32 {
    match score {
        Score::Centi(cp) => cp,
        Score::Mate(n) if n > 0 => 100_000 - n,
        Score::Mate(n) => -100_000 - n,
    }
}

/// A seed for drawing turns that differs from one `go` to the next.
fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The refusal of the `index`-th (from 0) turn of a `position` command's list. The turn
/// comes first, right after the prefix, because that is the word the Fanorona web
/// interface shows as the refused turn; its place in the list follows.
fn illegal_move(text: &str, index: usize, why: &dyn std::fmt::Display) -> String {
    format!(
        "illegal move {text} (turn {}): {why}; position unchanged",
        index + 1
    )
}

fn describe_status(status: Status) -> String {
    match status {
        Status::Ongoing => "ongoing".into(),
        Status::Won { winner, reason } => format!(
            "{} wins ({})",
            winner.name(),
            match reason {
                WinReason::NoStones => "no stones left",
                WinReason::NoLegalTurn => "no legal turn",
                WinReason::ThreeInARow => "three in a row",
            }
        ),
        Status::Drawn(reason) => format!(
            "draw ({})",
            match reason {
                DrawReason::Repetition => "threefold repetition",
                DrawReason::NoCaptureLimit => "no-capture limit",
            }
        ),
    }
}

/// Spells a line of turns from `position`, each in its position.
fn spell_line(position: &Position, rule: TurnRules, turns: &[Turn]) -> String {
    let mut current = *position;
    let mut words = Vec::with_capacity(turns.len());
    for &turn in turns {
        words.push(spell_turn(&current, rule, turn));
        current = current.play(turn);
    }
    words.join(" ")
}

/// The most a decided score that is not a mate is written as for the web interface.
const INTERFACE_DECIDED_MOST: i32 = 9_899;
/// How many distances the web interface's decided scores tell apart.
const INTERFACE_DECIDED_DISTANCES: i32 = 899;

/// A `cp` score as the Fanorona web interface reads it right. Its lowest levels read a
/// score of 9900 or more as a mate given as 10000 less the score (its own engine's way of
/// writing mates), so the 20000 less the distance with which Vato, like Stockfish, writes a
/// win of the tables or of a proof would show as the other side mating. For the interface,
/// such a decided score becomes 9000 to 9899, nearer wins higher: beyond any evaluation,
/// below that threshold, on the winner's side. Real mates stay `mate N`.
fn interface_centi(cp: i32) -> i32 {
    if !is_decided_win(cp.abs()) {
        return cp;
    }
    let distance = (TABLEBASE_WIN - cp.abs()).clamp(0, INTERFACE_DECIDED_DISTANCES);
    cp.signum() * (INTERFACE_DECIDED_MOST - distance)
}

/// The `info` line of a report; with `show_wdl`, `wdl W D L` follows the score; with
/// `interface_scores`, decided `cp` scores are written as [`interface_centi`] says.
fn info_line(
    root: &Position,
    rule: TurnRules,
    report: &Report,
    show_wdl: bool,
    interface_scores: bool,
) -> String {
    let millis = report.elapsed.as_millis() as u64;
    let nps = report.nodes * 1000 / millis.max(1);
    let score = match report.score {
        Score::Centi(cp) if interface_scores => format!("cp {}", interface_centi(cp)),
        Score::Centi(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let score = if show_wdl {
        let (win, draw, loss) = wdl(report.score);
        format!("{score} wdl {win} {draw} {loss}")
    } else {
        score
    };
    // Like Stockfish, `tbhits` only once the tables have answered something.
    let tbhits = if report.tbhits > 0 {
        format!(" tbhits {}", report.tbhits)
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {nps} hashfull {}{tbhits} time {millis} pv {}",
        report.depth,
        report.seldepth,
        report.multipv,
        report.nodes,
        report.hashfull,
        spell_line(root, rule, &report.pv)
    )
}

fn bestmove_line(root: &Position, rule: TurnRules, outcome: &Outcome, show_ponder: bool) -> String {
    let Some(best) = outcome.best else {
        return "bestmove (none)".into();
    };
    let mut line = format!("bestmove {}", spell_turn(root, rule, best));
    if let (true, Some(reply)) = (show_ponder, outcome.ponder) {
        line.push_str(&format!(
            " ponder {}",
            spell_turn(&root.play(best), rule, reply)
        ));
    }
    line
}

/// The line a session starts with, as UCI engines greet a person at a terminal.
pub fn banner() -> String {
    format!("Vato {} by the Vato developers", env!("CARGO_PKG_VERSION"))
}

/// The error line for `message`: input echoed in it is escaped and capped (see
/// [`printable`]), so that it is one line of printable text of bounded length.
pub fn error_line(message: &str) -> String {
    format!(
        "info string error {}",
        printable(message, MAX_MESSAGE_CHARS)
    )
}

/// The error line for an input line that is not valid UTF-8.
pub fn not_utf8_line(bytes: &[u8], error: std::str::Utf8Error) -> String {
    error_line(&format!(
        "line is not valid UTF-8 (byte {}): '{}'",
        error.valid_up_to() + 1,
        String::from_utf8_lossy(bytes)
    ))
}

/// The tables' turns at the root with their values, best first.
type TablebaseLines = Vec<(Turn, TablebaseValue)>;

/// What the session's loop waits for: an input line, the end of input, or work that has
/// written its last line.
enum Event {
    Line(Vec<u8>),
    EndOfInput,
    WorkDone,
}

/// Reads `input` line by line on its own thread, so that the session can carry out waiting
/// commands when a search ends while no line comes. Ends at the end of input, or when the
/// session has stopped listening.
fn read_lines(
    mut input: impl BufRead + Send + 'static,
    events: std::sync::mpsc::Sender<Event>,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("input".into())
        .spawn(move || {
            loop {
                let mut bytes = Vec::new();
                match input.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                while bytes.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                    bytes.pop();
                }
                if events.send(Event::Line(bytes)).is_err() {
                    return;
                }
            }
            let _ = events.send(Event::EndOfInput);
        })
}

/// Runs a session over `input` until `quit` or the end of input; `tablebase_path` sets
/// the `TablebasePath` option before the first command.
pub fn run(
    input: impl BufRead + Send + 'static,
    out: Arc<Output>,
    tablebase_path: Option<&str>,
) -> std::io::Result<()> {
    out.line(&banner());
    let mut session = Session::new(out.clone());
    match tablebase_path {
        Some(path) => session.set_option("TablebasePath", Some(path)),
        // The tables in the default folder, said right after the banner when found.
        None => session.open_tablebase(),
    }
    let (send, events) = std::sync::mpsc::channel();
    let done = send.clone();
    session.set_waker(Arc::new(move || {
        let _ = done.send(Event::WorkDone);
    }));
    // The reader is not joined: after `quit` it may still wait for a line that never comes,
    // and the process ends without it.
    let _reader = read_lines(input, send)?;
    // The waker holds a sender: the loop ends at the end of input or `quit`, never on a
    // closed channel, but a failed receive ends it as the end of input would.
    while let Ok(event) = events.recv() {
        match event {
            Event::Line(bytes) => match std::str::from_utf8(&bytes) {
                Ok(line) => {
                    if session.handle_line(line) == Flow::Quit {
                        return Ok(());
                    }
                }
                Err(e) => {
                    out.log_input(&String::from_utf8_lossy(&bytes));
                    out.line(&not_utf8_line(&bytes, e));
                }
            },
            Event::WorkDone => session.resume(),
            Event::EndOfInput => break,
        }
    }
    session.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn decided_scores_for_the_interface_stay_below_its_mate_threshold_on_the_winners_side() {
        use crate::tablebase::{Outcome as TableOutcome, Value};
        for distance in [0, 1, 5, 60, 900, 5_000] {
            for ply in [0, 3, 100] {
                let win = Value {
                    outcome: TableOutcome::Win,
                    distance,
                };
                let score = tablebase_score(win, ply);
                let shown = interface_centi(score);
                assert!((9_000..9_900).contains(&shown), "{distance} {ply}: {shown}");
                assert_eq!(interface_centi(-score), -shown);
            }
        }
        // Nearer wins stay higher; the proofs' score too is a win.
        let near = |distance| {
            interface_centi(tablebase_score(
                Value {
                    outcome: TableOutcome::Win,
                    distance,
                },
                0,
            ))
        };
        assert!(near(3) > near(9));
        assert!((9_000..9_900).contains(&interface_centi(proven_win_score())));
        // Evaluations pass unchanged.
        for cp in [-5_000, -1, 0, 37, 9_950, 12_000] {
            assert_eq!(interface_centi(cp), cp);
        }
    }

    #[test]
    fn without_a_search_thread_an_infinite_search_still_answers_from_depth_1() {
        let captured = Captured::default();
        let out = Output::new(Box::new(captured.clone()));
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        let tt = Arc::new(TranspositionTable::new(1));
        let mut request = SearchRequest::new(vec![Position::start()], limits, tt);
        request.threads = 4;
        let job = SearchJob {
            request,
            signals: Arc::new(Signals::new(false)),
            finished: Arc::new(AtomicBool::new(false)),
            out,
            decided: false,
            from_tables: None,
            from_book: None,
            proven: None,
            wait_for_stop: true,
            show_ponder: false,
            show_wdl: false,
            interface_scores: false,
            skill: None,
            waker: None,
        };
        // Never stopped: only the shallow job can end without a `stop`.
        job.shallow().run();
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("info depth 1 "), "{lines:?}");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].starts_with("bestmove "), "{lines:?}");
        assert!(job.finished.load(Ordering::SeqCst));
    }
}
