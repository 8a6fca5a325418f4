//! The engine protocol's input: each line parsed into a typed [`Command`].
//!
//! The grammar is UCI's, plus the UGI names that game-agnostic runners use and a few
//! debugging commands. Words are separated by any white space; command and keyword names
//! are case-sensitive, as in UCI. Parsing never looks at a position: turns and positions
//! stay text here and are checked by the session against the rules core.

use nom::bytes::complete::{take_till1, take_while, take_while1};
use nom::combinator::all_consuming;
use nom::multi::separated_list0;
use nom::sequence::delimited;
use nom::{IResult, Parser};
use std::fmt;

/// A parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`, or `ugi` (`ugi` true): identify and list the options.
    Hello {
        /// Answer with `ugiok` rather than `uciok`.
        ugi: bool,
    },
    /// `isready`.
    IsReady,
    /// `debug [on|off]`; no argument toggles.
    Debug(Option<bool>),
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// Option name as written (matched without regard to case).
        name: String,
        /// Value, if given.
        value: Option<String>,
    },
    /// `ucinewgame` / `uginewgame`.
    NewGame,
    /// `position startpos|fen <fen> [moves <turn>...]`.
    Position {
        /// `None` for the start position, else the position string.
        fen: Option<String>,
        /// The turns to play from there.
        moves: Vec<String>,
    },
    /// `go ...`.
    Go(GoParams),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// `query gameover|p1turn|result` (UGI).
    Query(Query),
    /// `d`: draw the board and describe the position.
    Display,
    /// `fen`: print the position string.
    Fen,
    /// `moves [prefix]`: list the legal turns (that extend `prefix`).
    Moves(Option<String>),
    /// `status`: whether the game goes on, and if not, who won or why it is drawn.
    Status,
    /// `perft <depth> [divide]`.
    Perft {
        /// Depth in turns.
        depth: u32,
        /// One line per root turn.
        divide: bool,
    },
    /// `eval`: the evaluation and its terms.
    Eval,
    /// `book`: the opening book's turns for the position.
    Book,
    /// `solve [seconds]`: prove the position won, drawn or lost.
    Solve(Option<u32>),
    /// `flip`: swap the colours.
    Flip,
    /// `bench [depth]`.
    Bench(Option<u32>),
    /// `help`.
    Help,
    /// A blank line or a `#` comment: nothing to do.
    Nothing,
}

/// A UGI query.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// Is the game over?
    GameOver,
    /// Is it player 1's (White's) turn?
    P1Turn,
    /// The result so far.
    Result,
}

/// The arguments of `go`, as given; times in milliseconds (negative clocks count as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// White's clock (`wtime` or `p1time`).
    pub wtime: Option<u64>,
    /// Black's clock (`btime` or `p2time`).
    pub btime: Option<u64>,
    /// White's increment (`winc` or `p1inc`).
    pub winc: Option<u64>,
    /// Black's increment (`binc` or `p2inc`).
    pub binc: Option<u64>,
    /// Turns to the next time control.
    pub movestogo: Option<u32>,
    /// Depth limit.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Fixed time.
    pub movetime: Option<u64>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder search.
    pub ponder: bool,
    /// Root turns to consider, as written.
    pub searchmoves: Vec<String>,
}

/// Why a line is not a command; the text says what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl Command {
    /// Whether the command only reads the session's state, so that it may be answered
    /// while a search runs (the game cannot change then: commands that would change it
    /// are refused as busy).
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            Command::IsReady
                | Command::Display
                | Command::Fen
                | Command::Moves(_)
                | Command::Status
                | Command::Eval
                | Command::Book
                | Command::Query(_)
                | Command::Help
                | Command::Nothing
        )
    }

    /// Whether the command steers the work that runs rather than the game, so that it is
    /// acted on as soon as it is read, even while other commands wait for a search to end:
    /// `stop`, `ponderhit`, `quit`, `isready`, `debug`, and blank lines and comments.
    pub fn steers(&self) -> bool {
        matches!(
            self,
            Command::Stop
                | Command::PonderHit
                | Command::Quit
                | Command::IsReady
                | Command::Debug(_)
                | Command::Nothing
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// Splits a line into words: maximal runs of characters that are not white space (in the
/// Unicode sense, so a no-break space or a form feed separates words too).
fn words(line: &str) -> IResult<&str, Vec<&str>> {
    all_consuming(delimited(
        take_while(char::is_whitespace),
        separated_list0(
            take_while1(char::is_whitespace),
            take_till1(char::is_whitespace),
        ),
        take_while(char::is_whitespace),
    ))
    .parse(line)
}

fn error<T>(message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(message.into()))
}

/// Parses one input line.
pub fn parse_command(line: &str) -> Result<Command, ParseError> {
    let (_, words) = words(line).map_err(|_| ParseError("unreadable line".into()))?;
    let Some((&name, args)) = words.split_first() else {
        return Ok(Command::Nothing);
    };
    if name.starts_with('#') {
        return Ok(Command::Nothing);
    }
    let no_args = |command: Command| -> Result<Command, ParseError> {
        match args.first() {
            None => Ok(command),
            Some(extra) => error(format!("{name}: unexpected '{extra}'")),
        }
    };
    match name {
        "uci" => no_args(Command::Hello { ugi: false }),
        "ugi" => no_args(Command::Hello { ugi: true }),
        "isready" => no_args(Command::IsReady),
        "ucinewgame" | "uginewgame" => no_args(Command::NewGame),
        "stop" => no_args(Command::Stop),
        "ponderhit" => no_args(Command::PonderHit),
        "quit" => no_args(Command::Quit),
        "d" => no_args(Command::Display),
        "fen" => no_args(Command::Fen),
        "eval" => no_args(Command::Eval),
        "book" => no_args(Command::Book),
        "solve" => match args {
            [] => Ok(Command::Solve(None)),
            [seconds] => Ok(Command::Solve(Some(number(name, "seconds", seconds)?))),
            [_, extra, ..] => error(format!("solve: unexpected '{extra}'")),
        },
        "status" => no_args(Command::Status),
        "flip" => no_args(Command::Flip),
        "help" => no_args(Command::Help),
        "debug" => parse_debug(args),
        "setoption" => parse_setoption(args),
        "position" => parse_position(args),
        "go" => parse_go(args).map(Command::Go),
        "query" => parse_query(args),
        "moves" => match args {
            [] => Ok(Command::Moves(None)),
            [prefix] => Ok(Command::Moves(Some((*prefix).to_string()))),
            [_, extra, ..] => error(format!("moves: unexpected '{extra}'")),
        },
        "perft" => parse_perft(args),
        "bench" => match args {
            [] => Ok(Command::Bench(None)),
            [depth] => Ok(Command::Bench(Some(number(name, "depth", depth)?))),
            [_, extra, ..] => error(format!("bench: unexpected '{extra}'")),
        },
        _ => error(format!("unknown command '{name}' (try 'help')")),
    }
}

fn number<T: std::str::FromStr>(command: &str, what: &str, text: &str) -> Result<T, ParseError> {
    text.parse().or_else(|_| {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            error(format!("{command}: {what} '{text}' is out of range"))
        } else {
            error(format!(
                "{command}: {what} needs a whole number, found '{text}'"
            ))
        }
    })
}

fn parse_debug(args: &[&str]) -> Result<Command, ParseError> {
    match args {
        [] => Ok(Command::Debug(None)),
        ["on"] => Ok(Command::Debug(Some(true))),
        ["off"] => Ok(Command::Debug(Some(false))),
        [other] => error(format!("debug: expected 'on' or 'off', found '{other}'")),
        [_, extra, ..] => error(format!("debug: unexpected '{extra}'")),
    }
}

fn parse_setoption(args: &[&str]) -> Result<Command, ParseError> {
    let Some(("name", rest)) = args.split_first().map(|(w, r)| (*w, r)) else {
        return error("setoption: expected 'name <option> [value <value>]'");
    };
    let value_at = rest.iter().position(|&w| w == "value");
    let (name_words, value_words) = match value_at {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if name_words.is_empty() {
        return error("setoption: missing option name");
    }
    Ok(Command::SetOption {
        name: name_words.join(" "),
        value: value_words.map(|words| words.join(" ")),
    })
}

fn parse_position(args: &[&str]) -> Result<Command, ParseError> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    let fen = match setup {
        ["startpos"] => None,
        ["startpos", extra, ..] => return error(format!("position: unexpected '{extra}'")),
        ["fen"] => return error("position: 'fen' needs a position string"),
        ["fen", fields @ ..] => Some(fields.join(" ")),
        [] => return error("position: expected 'startpos' or 'fen <position>'"),
        [other, ..] => {
            return error(format!(
                "position: expected 'startpos' or 'fen', found '{other}'"
            ));
        }
    };
    Ok(Command::Position {
        fen,
        moves: moves.iter().map(|m| (*m).to_string()).collect(),
    })
}

fn parse_go(args: &[&str]) -> Result<GoParams, ParseError> {
    let mut params = GoParams::default();
    let mut rest = args;
    while let Some((&keyword, after)) = rest.split_first() {
        rest = after;
        if keyword == "searchmoves" {
            // Every following word is a turn, up to the next keyword.
            let end = rest
                .iter()
                .position(|w| is_go_keyword(w))
                .unwrap_or(rest.len());
            if end == 0 {
                return error("go: searchmoves needs at least one turn");
            }
            params.searchmoves = rest[..end].iter().map(|m| (*m).to_string()).collect();
            rest = &rest[end..];
            continue;
        }
        match keyword {
            "infinite" => {
                params.infinite = true;
                continue;
            }
            "ponder" => {
                params.ponder = true;
                continue;
            }
            _ if !is_go_keyword(keyword) => {
                return error(format!("go: unknown parameter '{keyword}'"));
            }
            _ => {}
        }
        let Some((&value, after)) = rest.split_first() else {
            return error(format!("go: {keyword} needs a value"));
        };
        rest = after;
        let millis = |text: &str| -> Result<Option<u64>, ParseError> {
            let signed: i64 = number("go", keyword, text)?;
            Ok(Some(signed.max(0) as u64))
        };
        match keyword {
            "wtime" | "p1time" => params.wtime = millis(value)?,
            "btime" | "p2time" => params.btime = millis(value)?,
            "winc" | "p1inc" => params.winc = millis(value)?,
            "binc" | "p2inc" => params.binc = millis(value)?,
            "movetime" => params.movetime = millis(value)?,
            "movestogo" => params.movestogo = Some(number("go", keyword, value)?),
            "depth" => params.depth = Some(number("go", keyword, value)?),
            "nodes" => params.nodes = Some(number("go", keyword, value)?),
            _ => unreachable!("every keyword with a value is listed"),
        }
    }
    Ok(params)
}

fn is_go_keyword(word: &str) -> bool {
    matches!(
        word,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "p1time"
            | "p2time"
            | "p1inc"
            | "p2inc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "movetime"
            | "infinite"
            | "ponder"
            | "searchmoves"
    )
}

fn parse_query(args: &[&str]) -> Result<Command, ParseError> {
    match args {
        ["gameover"] => Ok(Command::Query(Query::GameOver)),
        ["p1turn"] => Ok(Command::Query(Query::P1Turn)),
        ["result"] => Ok(Command::Query(Query::Result)),
        [] => error("query: expected gameover, p1turn or result"),
        [other] => error(format!(
            "query: unknown query '{other}' (gameover, p1turn or result)"
        )),
        [_, extra, ..] => error(format!("query: unexpected '{extra}'")),
    }
}

fn parse_perft(args: &[&str]) -> Result<Command, ParseError> {
    let depth = |text: &str| -> Result<u32, ParseError> {
        use crate::rules::perft::MAX_PERFT_DEPTH;
        let depth: u64 = number("perft", "depth", text)?;
        if depth > u64::from(MAX_PERFT_DEPTH) {
            return error(format!(
                "perft: depth {depth} is too deep (at most {MAX_PERFT_DEPTH})"
            ));
        }
        Ok(depth as u32)
    };
    match args {
        [text] => Ok(Command::Perft {
            depth: depth(text)?,
            divide: false,
        }),
        [text, "divide"] => Ok(Command::Perft {
            depth: depth(text)?,
            divide: true,
        }),
        [] => error("perft: needs a depth"),
        [_, extra, ..] => error(format!("perft: unexpected '{extra}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Command {
        parse_command(line).unwrap()
    }

    fn err(line: &str) -> String {
        parse_command(line).unwrap_err().0
    }

    #[test]
    fn simple_commands_and_white_space() {
        assert_eq!(parse("uci"), Command::Hello { ugi: false });
        assert_eq!(parse("  \tugi  "), Command::Hello { ugi: true });
        assert_eq!(parse("isready"), Command::IsReady);
        assert_eq!(parse(""), Command::Nothing);
        assert_eq!(parse("   "), Command::Nothing);
        assert_eq!(parse("# a comment"), Command::Nothing);
        assert_eq!(parse("debug on"), Command::Debug(Some(true)));
    }

    #[test]
    fn command_names_are_case_sensitive() {
        assert_eq!(err("UCI"), "unknown command 'UCI' (try 'help')");
        assert_eq!(err("isready now"), "isready: unexpected 'now'");
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            }
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert_eq!(
            err("setoption Hash 3"),
            "setoption: expected 'name <option> [value <value>]'"
        );
    }

    #[test]
    fn position_commands() {
        assert_eq!(
            parse("position startpos moves d3e3W e4d3A"),
            Command::Position {
                fen: None,
                moves: vec!["d3e3W".into(), "e4d3A".into()]
            }
        );
        assert_eq!(
            parse("position fen 9/9/4W4/9/B8 w 3 7 moves e3e4"),
            Command::Position {
                fen: Some("9/9/4W4/9/B8 w 3 7".into()),
                moves: vec!["e3e4".into()]
            }
        );
        assert_eq!(
            err("position"),
            "position: expected 'startpos' or 'fen <position>'"
        );
        assert_eq!(
            err("position start"),
            "position: expected 'startpos' or 'fen', found 'start'"
        );
        assert_eq!(
            err("position fen"),
            "position: 'fen' needs a position string"
        );
    }

    #[test]
    fn go_parameters() {
        let go = parse_go(&[
            "wtime",
            "1000",
            "btime",
            "-5",
            "winc",
            "10",
            "binc",
            "10",
            "movestogo",
            "5",
        ])
        .unwrap();
        assert_eq!(go.wtime, Some(1000));
        assert_eq!(go.btime, Some(0));
        assert_eq!(go.movestogo, Some(5));
        let go = parse_go(&["p1time", "7", "p2inc", "3", "infinite"]).unwrap();
        assert_eq!((go.wtime, go.binc, go.infinite), (Some(7), Some(3), true));
        let go = parse_go(&["searchmoves", "d3e3W", "d2e3A", "depth", "3"]).unwrap();
        assert_eq!(go.searchmoves, ["d3e3W", "d2e3A"]);
        assert_eq!(go.depth, Some(3));
        assert_eq!(err("go depth"), "go: depth needs a value");
        assert_eq!(
            err("go depth x"),
            "go: depth needs a whole number, found 'x'"
        );
        assert_eq!(err("go fast"), "go: unknown parameter 'fast'");
        assert_eq!(
            err("go searchmoves"),
            "go: searchmoves needs at least one turn"
        );
    }

    #[test]
    fn queries_and_debug_commands() {
        assert_eq!(parse("query result"), Command::Query(Query::Result));
        assert_eq!(
            err("query winner"),
            "query: unknown query 'winner' (gameover, p1turn or result)"
        );
        assert_eq!(
            parse("perft 3 divide"),
            Command::Perft {
                depth: 3,
                divide: true
            }
        );
        assert_eq!(
            err("perft x"),
            "perft: depth needs a whole number, found 'x'"
        );
        assert_eq!(parse("moves c1d1"), Command::Moves(Some("c1d1".into())));
        assert_eq!(parse("status"), Command::Status);
        assert_eq!(parse("bench 4"), Command::Bench(Some(4)));
    }
}
