//! Engines: how the command line describes one ([`EngineSpec`]), and a running engine
//! process with the protocol the runner speaks to it ([`EngineProcess`]).

use crate::rules::board::Board;
use crate::rules::position::Color;
use crate::rules::{ChainRule, Rules};
use crate::timestamp::log_timestamp;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, LineWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

/// The handshake an engine expects.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// `uci` ... `uciok`, `ucinewgame`, `wtime`/`btime`.
    #[default]
    Uci,
    /// `ugi` ... `ugiok`, `uginewgame`, `p1time`/`p2time`.
    Ugi,
}

impl Protocol {
    fn hello(self) -> &'static str {
        match self {
            Protocol::Uci => "uci",
            Protocol::Ugi => "ugi",
        }
    }

    fn hello_ok(self) -> &'static str {
        match self {
            Protocol::Uci => "uciok",
            Protocol::Ugi => "ugiok",
        }
    }

    fn new_game(self) -> &'static str {
        match self {
            Protocol::Uci => "ucinewgame",
            Protocol::Ugi => "uginewgame",
        }
    }

    /// The `go` parameter names of White's time, Black's time, White's increment and
    /// Black's increment.
    pub fn clock_words(self) -> [&'static str; 4] {
        match self {
            Protocol::Uci => ["wtime", "btime", "winc", "binc"],
            Protocol::Ugi => ["p1time", "p2time", "p1inc", "p2inc"],
        }
    }
}

/// A clock: `base` for the game (or for every `moves` turns), plus `increment` per turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Turns per period; `None` for the whole game.
    pub moves: Option<u32>,
    /// Time per period.
    pub base: Duration,
    /// Time added after each turn.
    pub increment: Duration,
}

/// Why a value on the command line was refused; the text is the whole message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

fn seconds(text: &str, what: &str) -> Result<Duration, SpecError> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            SpecError(format!(
                "{what} must be a number of seconds, found '{text}'"
            ))
        })
}

/// Reads a duration in milliseconds: `250`, `250ms` or `0.25s`.
pub fn parse_millis(text: &str) -> Result<Duration, SpecError> {
    let bad = || {
        SpecError(format!(
            "expected milliseconds (250, 250ms or 0.25s), found '{text}'"
        ))
    };
    if let Some(s) = text.strip_suffix("ms") {
        s.parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|_| bad())
    } else if let Some(s) = text.strip_suffix('s') {
        seconds(s, "a duration").map_err(|_| bad())
    } else {
        text.parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|_| bad())
    }
}

impl FromStr for TimeControl {
    type Err = SpecError;

    /// `[moves/]base[+increment]`, in seconds: `10+0.1`, `60`, `40/120+1`.
    fn from_str(text: &str) -> Result<TimeControl, SpecError> {
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => {
                let moves = moves
                    .parse::<u32>()
                    .ok()
                    .filter(|&m| m > 0)
                    .ok_or_else(|| SpecError(format!("tc: '{moves}' is not a number of turns")))?;
                (Some(moves), rest)
            }
            None => (None, text),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((base, inc)) => (seconds(base, "tc")?, seconds(inc, "tc increment")?),
            None => (seconds(rest, "tc")?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(SpecError(format!("tc: '{text}' gives no time")));
        }
        Ok(TimeControl {
            moves,
            base,
            increment,
        })
    }
}

/// Seconds without trailing zeros: `10`, `0.1`, `2.5`.
fn format_seconds(d: Duration) -> String {
    let text = format!("{:.3}", d.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}", format_seconds(self.base))?;
        if !self.increment.is_zero() {
            write!(f, "+{}", format_seconds(self.increment))?;
        }
        Ok(())
    }
}

/// How long an engine may think: every limit given is sent with `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// A clock, kept by the runner and sent as the time left.
    pub clock: Option<TimeControl>,
    /// Time per turn.
    pub movetime: Option<Duration>,
    /// Search depth.
    pub depth: Option<u32>,
    /// Search nodes.
    pub nodes: Option<u64>,
}

impl Limits {
    /// True when no limit is set: `go` would never end by itself.
    pub fn is_empty(&self) -> bool {
        self.clock.is_none()
            && self.movetime.is_none()
            && self.depth.is_none()
            && self.nodes.is_none()
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(clock) = self.clock {
            parts.push(clock.to_string());
        }
        if let Some(movetime) = self.movetime {
            parts.push(format!("movetime={}ms", movetime.as_millis()));
        }
        if let Some(depth) = self.depth {
            parts.push(format!("depth={depth}"));
        }
        if let Some(nodes) = self.nodes {
            parts.push(format!("nodes={nodes}"));
        }
        if parts.is_empty() {
            f.write_str("-")
        } else {
            f.write_str(&parts.join(","))
        }
    }
}

/// The default slack beyond the clock before a late answer loses on time.
pub const DEFAULT_TIME_MARGIN: Duration = Duration::from_millis(100);
/// The default longest wait for `uciok`, `readyok`, and for `bestmove` without a clock.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// One engine of a match, as `--engine` and `--each` describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name in records and standings; unique within a match.
    pub name: String,
    /// The program to run.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory to run it in; by default the runner's.
    pub dir: Option<PathBuf>,
    /// The handshake it speaks.
    pub protocol: Protocol,
    /// `setoption` name and value pairs, sent after the handshake in this order.
    pub options: Vec<(String, String)>,
    /// How long it may think.
    pub limits: Limits,
    /// The slack beyond the clock or the move time before a late answer loses on time.
    pub time_margin: Duration,
    /// The longest wait for `uciok` and `readyok`, and for `bestmove` when the search has
    /// neither clock nor move time.
    pub timeout: Duration,
}

/// The keys `--engine` and `--each` accept, for messages.
pub const ENGINE_KEYS: &str =
    "name, cmd, arg, dir, proto, option.NAME, tc, movetime, depth, nodes, timemargin, timeout";

impl EngineSpec {
    /// An engine from `KEY=VALUE` words: first the `--each` words shared by all engines,
    /// then this engine's own, so that its own win. `number` (from 1) names the engine in
    /// messages until it has a name.
    pub fn from_words(
        each: &[String],
        own: &[String],
        number: usize,
    ) -> Result<EngineSpec, SpecError> {
        let mut spec = EngineSpec {
            name: String::new(),
            command: String::new(),
            args: Vec::new(),
            dir: None,
            protocol: Protocol::Uci,
            options: Vec::new(),
            limits: Limits::default(),
            time_margin: DEFAULT_TIME_MARGIN,
            timeout: DEFAULT_TIMEOUT,
        };
        for (word, is_each) in each
            .iter()
            .map(|w| (w, true))
            .chain(own.iter().map(|w| (w, false)))
        {
            let context = if is_each {
                "--each".to_string()
            } else {
                format!("--engine {number}")
            };
            let (key, value) = word.split_once('=').ok_or_else(|| {
                SpecError(format!("{context}: expected KEY=VALUE, found '{word}'"))
            })?;
            spec.apply(key, value, is_each)
                .map_err(|e| SpecError(format!("{context}: {}", e.0)))?;
        }
        if spec.command.is_empty() {
            return Err(SpecError(format!(
                "--engine {number}: cmd=PROGRAM is missing"
            )));
        }
        if spec.name.is_empty() {
            spec.name = Path::new(&spec.command)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| format!("engine{number}"));
        }
        if spec.limits.is_empty() {
            return Err(SpecError(format!(
                "engine '{}' has no limit: give tc=, movetime=, depth= or nodes= (here or in --each)",
                spec.name
            )));
        }
        Ok(spec)
    }

    fn apply(&mut self, key: &str, value: &str, shared: bool) -> Result<(), SpecError> {
        let number = |what: &str| -> Result<u64, SpecError> {
            value
                .parse::<u64>()
                .map_err(|_| SpecError(format!("{what} must be a whole number, found '{value}'")))
        };
        match key {
            "name" if shared => return Err(SpecError("name= belongs to one engine".into())),
            "name" if value.is_empty() => return Err(SpecError("name= is empty".into())),
            "name" => self.name = value.to_string(),
            "cmd" => self.command = value.to_string(),
            "arg" => self.args.push(value.to_string()),
            "dir" => self.dir = Some(PathBuf::from(value)),
            "proto" => {
                self.protocol = match value {
                    "uci" => Protocol::Uci,
                    "ugi" => Protocol::Ugi,
                    _ => {
                        return Err(SpecError(format!(
                            "proto must be uci or ugi, found '{value}'"
                        )));
                    }
                }
            }
            "tc" => {
                self.limits.clock = match value {
                    "" | "none" => None,
                    _ => Some(value.parse()?),
                }
            }
            "movetime" => {
                let d = parse_millis(value).map_err(|e| SpecError(format!("movetime: {e}")))?;
                self.limits.movetime = (!d.is_zero()).then_some(d);
            }
            "depth" => self.limits.depth = Some(number("depth")? as u32).filter(|&d| d > 0),
            "nodes" => self.limits.nodes = Some(number("nodes")?).filter(|&n| n > 0),
            "timemargin" => {
                self.time_margin =
                    parse_millis(value).map_err(|e| SpecError(format!("timemargin: {e}")))?
            }
            "timeout" => {
                let d = parse_millis(value).map_err(|e| SpecError(format!("timeout: {e}")))?;
                if d.is_zero() {
                    return Err(SpecError("timeout must be above 0".into()));
                }
                self.timeout = d;
            }
            _ => match key.strip_prefix("option.") {
                Some(name) if !name.trim().is_empty() => {
                    let name = name.trim();
                    self.options.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                    self.options.push((name.to_string(), value.to_string()));
                }
                _ => {
                    return Err(SpecError(format!(
                        "unknown key '{key}' (known: {ENGINE_KEYS})"
                    )));
                }
            },
        }
        Ok(())
    }
}

/// A score as an engine reports it, from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Hundredths of a stone.
    Cp(i32),
    /// A forced end in this many turns of the side to move (negative: it loses).
    Mate(i32),
}

impl Score {
    /// The score on one scale for adjudication: a forced win or loss counts as a lead of
    /// 300 stones, far beyond any material lead.
    pub fn centi(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 30_000 - n,
            Score::Mate(n) => -30_000 - n,
        }
    }
}

/// Written as in game records: stones with two decimals (`+1.25`, `-0.50`, `0.00`) or a
/// forced end (`+M3`, `-M2`).
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(0) => f.write_str("0.00"),
            Score::Cp(cp) => {
                let sign = if cp < 0 { '-' } else { '+' };
                let cp = cp.unsigned_abs();
                write!(f, "{sign}{}.{:02}", cp / 100, cp % 100)
            }
            Score::Mate(n) if n >= 0 => write!(f, "+M{n}"),
            Score::Mate(n) => write!(f, "-M{}", n.unsigned_abs()),
        }
    }
}

impl FromStr for Score {
    type Err = ();

    fn from_str(text: &str) -> Result<Score, ()> {
        if let Some(n) = text.strip_prefix("+M") {
            return n.parse().map(Score::Mate).map_err(|_| ());
        }
        if let Some(n) = text.strip_prefix("-M") {
            return n.parse::<i32>().map(|n| Score::Mate(-n)).map_err(|_| ());
        }
        let stones: f64 = text.parse().map_err(|_| ())?;
        Ok(Score::Cp((stones * 100.0).round() as i32))
    }
}

/// What the last `info` line before `bestmove` said.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// The score, if reported.
    pub score: Option<Score>,
    /// The depth, if reported.
    pub depth: Option<u32>,
}

/// Reads the score and depth of an `info` line; lines of secondary variations
/// (`multipv 2` and up) say nothing about the chosen turn and give `None`.
pub fn parse_info(line: &str) -> Option<SearchInfo> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        return None;
    }
    let mut info = SearchInfo::default();
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "string" => break,
            "multipv" if words.get(i + 1).is_some_and(|k| *k != "1") => return None,
            "depth" => info.depth = words.get(i + 1).and_then(|d| d.parse().ok()),
            "score" => {
                let value = words.get(i + 2).and_then(|v| v.parse::<i32>().ok());
                info.score = match (words.get(i + 1).copied(), value) {
                    (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => info.score,
                };
            }
            _ => {}
        }
        i += 1;
    }
    (info.score.is_some() || info.depth.is_some()).then_some(info)
}

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The program could not be started, or lacks something the match needs.
    Start(String),
    /// The engine closed its output or its input (it exited or died).
    Crashed(String),
    /// It did not answer within the time-out.
    Stalled(String),
    /// The match is being stopped.
    Interrupted,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Start(why) => write!(f, "cannot start: {why}"),
            EngineError::Crashed(why) => write!(f, "crashed ({why})"),
            EngineError::Stalled(why) => write!(f, "stalled ({why})"),
            EngineError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for EngineError {}

/// A line from the engine and when it arrived.
type Line = (Instant, String);

/// What the reader of an engine's output hands on: a line, or the protocol fault that
/// ended the reading.
type Received = Result<Line, String>;

/// The longest line an engine may write, line feed included; a longer one is a protocol
/// fault, so that an engine writing without end cannot make the runner buffer without end.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Reads one line of at most `max` bytes into `line` (the line feed dropped): `Ok(true)`
/// for a line, `Ok(false)` at the end of the output, `Err` with the fault for a line that
/// is longer (a last line without a line feed is still a line).
fn read_bounded_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> Result<bool, String> {
    line.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Ok(!line.is_empty()),
        };
        if available.is_empty() {
            return Ok(!line.is_empty());
        }
        let (taken, complete) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if line.len() + taken > max {
            return Err(format!("protocol fault: a line longer than {max} bytes"));
        }
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        if complete {
            line.pop();
            return Ok(true);
        }
    }
}

/// How long the runner waits between looks at the stop flag.
const POLL: Duration = Duration::from_millis(25);
/// How long an engine has to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// A protocol log shared by the threads that read and write one engine's pipes.
#[derive(Clone)]
struct ProtocolLog(Arc<Mutex<LineWriter<File>>>);

impl ProtocolLog {
    fn open(path: &Path) -> std::io::Result<ProtocolLog> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(ProtocolLog(Arc::new(Mutex::new(LineWriter::new(file)))))
    }

    fn record(&self, marker: &str, line: &str) {
        if let Ok(mut file) = self.0.lock() {
            // A log that cannot be written must not stop a game.
            let _ = writeln!(file, "{} {marker} {line}", log_timestamp(SystemTime::now()));
        }
    }
}

/// The answer to one `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The word after `bestmove`.
    pub bestmove: String,
    /// The last `info` before it.
    pub info: SearchInfo,
    /// From sending `go` to reading `bestmove`.
    pub elapsed: Duration,
}

/// Why a `go` got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoError {
    /// No `bestmove` before the deadline.
    Timeout(Duration),
    /// The engine died or closed its pipes.
    Crashed(String),
    /// The match is being stopped.
    Interrupted,
}

/// A running engine that has completed its handshake.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Received>,
    log: Option<ProtocolLog>,
    protocol: Protocol,
    timeout: Duration,
    /// The options the engine declared: each name, and the rest of its line.
    declared: Vec<(String, String)>,
    /// The engine's own name from `id name`, if it gave one.
    id_name: Option<String>,
}

impl EngineProcess {
    /// Starts the engine, does the handshake, sets its options and the rule options it
    /// declares, and waits for `readyok`. Appends the protocol to `log` when given.
    pub fn start(
        spec: &EngineSpec,
        rules: Rules,
        log: Option<&Path>,
        stop: &AtomicBool,
    ) -> Result<EngineProcess, EngineError> {
        let log = match log {
            Some(path) => Some(ProtocolLog::open(path).map_err(|e| {
                EngineError::Start(format!("cannot open the log {}: {e}", path.display()))
            })?),
            None => None,
        };
        // A relative path with a directory part is the runner's, whatever `dir` says: how
        // a child resolves it after changing directory differs between platforms.
        let program = Path::new(&spec.command);
        let program = if program.is_relative() && program.components().count() > 1 {
            std::env::current_dir()
                .map(|cwd| cwd.join(program))
                .unwrap_or_else(|_| program.to_path_buf())
        } else {
            program.to_path_buf()
        };
        let mut command = Command::new(&program);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if log.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        // In its own process group the engine does not receive the terminal's Ctrl-C, so
        // the runner can end the games and tell it to quit in order.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| EngineError::Start(format!("'{}': {e}", spec.command)))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, lines) = mpsc::channel();
        let reader_log = log.clone();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            loop {
                match read_bounded_line(&mut reader, &mut buffer, MAX_LINE_BYTES) {
                    Ok(false) => break,
                    Ok(true) => {
                        let arrived = Instant::now();
                        let text = String::from_utf8_lossy(&buffer);
                        let line = text.trim_end_matches(['\n', '\r']).to_string();
                        if let Some(log) = &reader_log {
                            log.record("<<", &line);
                        }
                        if sender.send(Ok((arrived, line))).is_err() {
                            break;
                        }
                    }
                    Err(fault) => {
                        if let Some(log) = &reader_log {
                            log.record("!!", &fault);
                        }
                        let _ = sender.send(Err(fault));
                        break;
                    }
                }
            }
        });
        if let (Some(stderr), Some(log)) = (child.stderr.take(), log.clone()) {
            thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    log.record("!!", &line);
                }
            });
        }
        let stdin = child.stdin.take();
        let mut engine = EngineProcess {
            child,
            stdin,
            lines,
            log,
            protocol: spec.protocol,
            timeout: spec.timeout,
            declared: Vec::new(),
            id_name: None,
        };
        engine.handshake(spec, rules, stop)?;
        Ok(engine)
    }

    fn handshake(
        &mut self,
        spec: &EngineSpec,
        rules: Rules,
        stop: &AtomicBool,
    ) -> Result<(), EngineError> {
        self.send(self.protocol.hello())?;
        let deadline = Instant::now() + self.timeout;
        let ok = self.protocol.hello_ok();
        loop {
            let (_, line) = self.wait_line(deadline, stop, ok)?;
            let line = line.trim();
            if line == ok {
                break;
            }
            if let Some(rest) = line.strip_prefix("option name ") {
                let (name, kind) = rest.split_once(" type ").unwrap_or((rest, ""));
                self.declared
                    .push((name.trim().to_string(), kind.trim().to_string()));
            } else if let Some(name) = line.strip_prefix("id name ") {
                self.id_name = Some(name.trim().to_string());
            }
        }
        for (name, value) in &spec.options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        if self.declares("NoCaptureLimit") {
            self.send(&format!(
                "setoption name NoCaptureLimit value {}",
                rules.no_capture_limit
            ))?;
        }
        let variant = rules.board.name();
        if self.declares("Variant") {
            self.send(&format!("setoption name Variant value {variant}"))?;
        } else if rules.board != Board::Tsivy {
            return Err(EngineError::Start(format!(
                "it does not declare the option Variant that a {variant} match needs"
            )));
        }
        let vela = rules.vela.map_or("none", Color::name);
        if self.declares("Vela") {
            self.send(&format!("setoption name Vela value {vela}"))?;
        } else if rules.vela.is_some() {
            return Err(EngineError::Start(
                "it does not declare the option Vela that a vela match needs".into(),
            ));
        }
        let mandatory = rules.chain_rule == ChainRule::Mandatory;
        if self.declares("MandatoryContinuation") {
            self.send(&format!(
                "setoption name MandatoryContinuation value {mandatory}"
            ))?;
        } else if mandatory {
            return Err(EngineError::Start(
                "it does not declare the option MandatoryContinuation that the match's rules need"
                    .into(),
            ));
        }
        self.sync(stop)
    }

    /// True while the process has not exited.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// True when the engine declared the option `name` (compared without case).
    pub fn declares(&self, name: &str) -> bool {
        self.declared
            .iter()
            .any(|(d, _)| d.eq_ignore_ascii_case(name))
    }

    /// The default, minimum and maximum of the spin option `name`, if the engine
    /// declared one.
    pub fn spin(&self, name: &str) -> Option<(i64, i64, i64)> {
        let (_, kind) = self
            .declared
            .iter()
            .find(|(d, _)| d.eq_ignore_ascii_case(name))?;
        let words: Vec<&str> = kind.split_whitespace().collect();
        if words.first() != Some(&"spin") {
            return None;
        }
        let field = |key: &str| -> Option<i64> {
            let at = words.iter().position(|w| *w == key)?;
            words.get(at + 1)?.parse().ok()
        };
        Some((field("default")?, field("min")?, field("max")?))
    }

    /// The engine's name from `id name`.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// Sends `isready` and waits for `readyok`, skipping other lines.
    pub fn sync(&mut self, stop: &AtomicBool) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        loop {
            let (_, line) = self.wait_line(deadline, stop, "readyok")?;
            if line.trim() == "readyok" {
                return Ok(());
            }
        }
    }

    /// Tells the engine a new game starts and waits until it is ready.
    pub fn new_game(&mut self, stop: &AtomicBool) -> Result<(), EngineError> {
        self.send(self.protocol.new_game())?;
        self.sync(stop)
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        if let Some(log) = &self.log {
            log.record(">>", line);
        }
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(format!("{line}\n").as_bytes()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        written.map_err(|_| EngineError::Crashed(self.exit_detail("its input is closed")))
    }

    /// Waits for the next line until `deadline`; `what` names the awaited answer in the
    /// time-out message.
    fn wait_line(
        &mut self,
        deadline: Instant,
        stop: &AtomicBool,
        what: &str,
    ) -> Result<Line, EngineError> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(EngineError::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Stalled(format!(
                    "no {what} within {} ms",
                    self.timeout.as_millis()
                )));
            }
            match self.lines.recv_timeout((deadline - now).min(POLL)) {
                Ok(Ok(line)) => return Ok(line),
                Ok(Err(fault)) => return Err(EngineError::Crashed(fault)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineError::Crashed(self.exit_detail("its output closed")));
                }
            }
        }
    }

    /// Sends the position and `go`, and waits for `bestmove` until `deadline` (counted
    /// from the moment `go` is sent, `None` for the engine's time-out).
    pub fn go(
        &mut self,
        position: &str,
        go: &str,
        deadline: Option<Duration>,
        stop: &AtomicBool,
    ) -> Result<Reply, GoError> {
        // Lines left over from an earlier exchange must not be taken for this answer.
        loop {
            match self.lines.try_recv() {
                Ok(Ok(_)) => {}
                Ok(Err(fault)) => return Err(GoError::Crashed(fault)),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    return Err(GoError::Crashed(self.exit_detail("its output closed")));
                }
            }
        }
        let to_go = |e: EngineError| match e {
            EngineError::Interrupted => GoError::Interrupted,
            EngineError::Crashed(why) | EngineError::Start(why) | EngineError::Stalled(why) => {
                GoError::Crashed(why)
            }
        };
        self.send(position).map_err(to_go)?;
        self.send(go).map_err(to_go)?;
        let sent = Instant::now();
        let allowed = deadline.unwrap_or(self.timeout);
        let mut info = SearchInfo::default();
        loop {
            let (arrived, line) = match self.wait_line(sent + allowed, stop, "bestmove") {
                Ok(line) => line,
                Err(EngineError::Stalled(_)) => return Err(GoError::Timeout(sent.elapsed())),
                Err(e) => return Err(to_go(e)),
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("bestmove") => {
                    return Ok(Reply {
                        bestmove: words.next().unwrap_or("").to_string(),
                        info,
                        elapsed: arrived.saturating_duration_since(sent),
                    });
                }
                Some("info") => {
                    if let Some(new) = parse_info(&line) {
                        info = SearchInfo {
                            score: new.score.or(info.score),
                            depth: new.depth.or(info.depth),
                        };
                    }
                }
                _ => {}
            }
        }
    }

    /// Describes how the process ended, waiting briefly for it to be reaped.
    fn exit_detail(&mut self, what: &str) -> String {
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("{what}; {status}"),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                _ => return what.to_string(),
            }
        }
    }

    /// Sends `quit` and gives the engine a moment to exit before it is killed.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        self.stdin = None;
        let until = Instant::now() + QUIT_GRACE;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                _ => return,
            }
        }
        // Drop kills it.
    }
}

impl Drop for EngineProcess {
    /// Ends the engine's whole process group, not only the process started: an engine run
    /// through a shell, or one with helpers, leaves no orphans behind. The group outlives
    /// its leader, so it is ended even when the engine itself already exited.
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Ok(group) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: `killpg` only sends a signal. The group is the one `start` created;
            // the kernel gives no new process an id that a live group still bears, so the
            // signal reaches this engine's group, or nobody once the group is empty (bar
            // the rare reuse of the id by a new group leader after the child was reaped).
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn time_controls() {
        let tc: TimeControl = "10+0.1".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(10));
        assert_eq!(tc.increment, Duration::from_millis(100));
        assert_eq!(tc.to_string(), "10+0.1");
        assert_eq!(
            "40/120".parse::<TimeControl>().unwrap().to_string(),
            "40/120"
        );
        assert!("0+1".parse::<TimeControl>().is_err());
        assert!("x+1".parse::<TimeControl>().is_err());
        assert_eq!(parse_millis("250").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_millis("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_millis("0.25s").unwrap(), Duration::from_millis(250));
        assert!(parse_millis("fast").is_err());
    }

    #[test]
    fn engine_words() {
        let each = words("tc=10+0.1 option.Hash=16");
        let own = words("name=new cmd=./vato option.hash=64 arg=-x depth=3 proto=ugi");
        let spec = EngineSpec::from_words(&each, &own, 1).unwrap();
        assert_eq!(spec.name, "new");
        assert_eq!(spec.args, vec!["-x".to_string()]);
        assert_eq!(spec.options, vec![("hash".to_string(), "64".to_string())]);
        assert_eq!(spec.protocol, Protocol::Ugi);
        assert_eq!(spec.limits.to_string(), "10+0.1,depth=3");
        let unnamed = EngineSpec::from_words(&[], &words("cmd=/usr/bin/vato depth=1"), 2).unwrap();
        assert_eq!(unnamed.name, "vato");
    }

    #[test]
    fn engine_word_errors() {
        let err = |each: &str, own: &str| {
            EngineSpec::from_words(&words(each), &words(own), 2)
                .unwrap_err()
                .0
        };
        assert_eq!(err("", "depth=1"), "--engine 2: cmd=PROGRAM is missing");
        assert_eq!(
            err("", "cmd=x"),
            "engine 'x' has no limit: give tc=, movetime=, depth= or nodes= (here or in --each)"
        );
        assert!(err("", "cmd=x colour=red").starts_with("--engine 2: unknown key 'colour'"));
        assert_eq!(
            err("name=a", "cmd=x"),
            "--each: name= belongs to one engine"
        );
        assert_eq!(
            err("", "cmd=x depth"),
            "--engine 2: expected KEY=VALUE, found 'depth'"
        );
        assert_eq!(
            err("", "cmd=x proto=xboard"),
            "--engine 2: proto must be uci or ugi, found 'xboard'"
        );
    }

    #[test]
    fn info_lines() {
        let line = "info depth 6 seldepth 7 multipv 1 score mate 3 nodes 562 pv d1d2";
        assert_eq!(
            parse_info(line),
            Some(SearchInfo {
                score: Some(Score::Mate(3)),
                depth: Some(6)
            })
        );
        assert_eq!(parse_info("info depth 2 multipv 2 score cp 10"), None);
        assert_eq!(parse_info("info string depth 3"), None);
        assert_eq!(
            parse_info("info depth 1 score cp -35").unwrap().score,
            Some(Score::Cp(-35))
        );
    }

    #[test]
    fn scores_print_and_read_back() {
        for (score, text) in [
            (Score::Cp(125), "+1.25"),
            (Score::Cp(-50), "-0.50"),
            (Score::Cp(-5), "-0.05"),
            (Score::Cp(0), "0.00"),
            (Score::Mate(3), "+M3"),
            (Score::Mate(-2), "-M2"),
        ] {
            assert_eq!(score.to_string(), text);
            assert_eq!(text.parse::<Score>(), Ok(score));
        }
        assert!(Score::Mate(5).centi() > Score::Cp(10_000).centi());
        assert!(Score::Mate(-5).centi() < Score::Cp(-10_000).centi());
    }
}
