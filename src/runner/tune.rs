//! `vato tune`: SPSA tuning of an engine's spin options by games of the engine against
//! itself, refereed like `vato match` (see [`super::spsa`] for the method).

use super::engine::{ENGINE_KEYS, EngineProcess, EngineSpec};
use super::openings::{OpeningSource, read_openings};
use super::referee::{Adjudication, Seat, play_game};
use super::spsa::{Perturbation, Plan, Spsa, Tuned};
use crate::rules::position::Color;
use crate::rules::{ChainRule, DEFAULT_NO_CAPTURE_LIMIT, Rules};
use crate::safe_file::write_atomically;
use anyhow::{Result, anyhow, bail};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

const TUNE_HELP: &str = "\
Each iteration plays one colour-swapped pair from a new opening: the engine with every
parameter pushed by a random sign against the engine pushed the other way. The parameters
move toward the side that scored better, by steps that shrink over the planned iterations.
The log (--log) is rewritten after every step; run the same command again to resume.

Examples:
  vato tune --engine cmd=./vato tc=2+0.02 --param SearchAspirationDelta \\
      --param SearchReductionDivisor --iterations 2000 --concurrency 2 --log tune.log
  vato tune --log tune.log --engine cmd=./vato tc=2+0.02 --iterations 2000   (resumes)";

/// Tunes spin options by SPSA over games of the engine against itself.
#[derive(Debug, Args)]
#[command(after_long_help = TUNE_HELP)]
pub struct TuneArgs {
    /// The engine, as KEY=VALUE words like vato match's --engine (cmd=, tc=, option.X=...).
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., required = true)]
    pub engine: Vec<String>,

    /// A spin option to tune, NAME or NAME=C: C is its perturbation at the last
    /// iteration (default a twentieth of its range). Repeat for each; a resumed run
    /// takes them from the log.
    #[arg(long, value_name = "NAME[=C]")]
    pub param: Vec<String>,

    /// Iterations (game pairs) the run is planned for; the step sizes shrink toward them.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub iterations: u64,

    /// The step at the last iteration per point of result, as a fraction of C (fishtest's
    /// default is 0.002 for tens of thousands of pairs; shorter runs need more).
    #[arg(long, value_name = "R", default_value_t = 0.002)]
    pub r_end: f64,

    /// Games played at the same time (a multiple of two plays several pairs per step).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,

    /// Seed of the perturbations and the openings.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,

    /// Openings: random balanced openings of N turns (the default, 6), unless --openings.
    #[arg(long, value_name = "N", default_value_t = 6)]
    pub random_openings: u32,

    /// Opening file, used in order and cycled.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,

    /// Draw after this many turns in a row without a capture (0: off).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_NO_CAPTURE_LIMIT)]
    pub no_capture_limit: u32,

    /// Play the variant where a capturing stone must go on while it can capture.
    #[arg(long)]
    pub mandatory_continuation: bool,

    /// The run's state: created when missing, resumed when present.
    #[arg(long, value_name = "FILE")]
    pub log: PathBuf,

    /// Print the values every N iterations.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub report_every: u64,
}

impl TuneArgs {
    fn rules(&self) -> Rules {
        Rules {
            no_capture_limit: self.no_capture_limit,
            chain_rule: ChainRule::mandatory_if(self.mandatory_continuation),
            vela: None,
            board: crate::rules::board::Board::Tsivy,
        }
    }
}

/// Asks the engine for the named spin options' ranges and defaults: the plan of a new run.
fn new_plan(args: &TuneArgs, spec: &EngineSpec, stop: &AtomicBool) -> Result<Plan> {
    if args.param.is_empty() {
        bail!("name the options to tune with --param NAME (or resume from an existing --log)");
    }
    if args.iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    if !(args.r_end > 0.0 && args.r_end.is_finite()) {
        bail!("--r-end must be a positive number");
    }
    let engine = EngineProcess::start(spec, args.rules(), None, stop)
        .map_err(|e| anyhow!("engine '{}': {e}", spec.name))?;
    let mut params = Vec::new();
    for word in &args.param {
        let (name, c_end) = match word.split_once('=') {
            Some((name, c)) => (name.trim(), Some(c)),
            None => (word.trim(), None),
        };
        let (default, min, max) = engine.spin(name).ok_or_else(|| {
            anyhow!("--param {name}: the engine declares no spin option of that name")
        })?;
        if min >= max {
            bail!("--param {name}: its range {min} to {max} leaves nothing to tune");
        }
        let c_end = match c_end {
            Some(text) => text
                .parse::<f64>()
                .ok()
                .filter(|c| *c > 0.0 && c.is_finite())
                .ok_or_else(|| {
                    anyhow!("--param {name}: C must be a positive number, found '{text}'")
                })?,
            None => ((max - min) as f64 / 20.0).max(0.5),
        };
        if params
            .iter()
            .any(|p: &Tuned| p.name.eq_ignore_ascii_case(name))
        {
            bail!("--param {name} is given twice");
        }
        params.push(Tuned {
            name: name.to_string(),
            min,
            max,
            start: default as f64,
            c_end,
        });
    }
    engine.quit();
    Ok(Plan {
        params,
        iterations: args.iterations,
        r_end: args.r_end,
        seed: args.seed,
    })
}

/// The engine with the option values `values`.
fn with_values(spec: &EngineSpec, plan: &Plan, values: &[i64], name: &str) -> EngineSpec {
    let mut spec = spec.clone();
    spec.name = name.to_string();
    for (p, v) in plan.params.iter().zip(values) {
        spec.options
            .retain(|(n, _)| !n.eq_ignore_ascii_case(&p.name));
        spec.options.push((p.name.clone(), v.to_string()));
    }
    spec
}

/// One game slot's engines, kept from game to game: the plus engine and the minus engine.
type Processes = [Option<EngineProcess>; 2];

/// What every game of a run shares.
struct Setting<'a> {
    spec: &'a EngineSpec,
    plan: &'a Plan,
    openings: &'a OpeningSource,
    rules: Rules,
}

/// Plays game `game` (0: plus engine White, 1: it Black) of the pair of `perturbation`;
/// the plus engine's points, or `None` when the run is stopping.
fn play_half(
    setting: &Setting,
    perturbation: &Perturbation,
    game: usize,
    processes: &mut Processes,
    stop: &AtomicBool,
) -> Result<Option<f64>> {
    let Setting {
        spec,
        plan,
        openings,
        rules,
    } = *setting;
    let plus = with_values(spec, plan, &perturbation.plus, "plus");
    let minus = with_values(spec, plan, &perturbation.minus, "minus");
    // Engines kept from earlier games get this iteration's values before the game.
    for (process, engine) in processes.iter_mut().zip([&plus, &minus]) {
        if let Some(process) = process.as_mut() {
            for (name, value) in &engine.options {
                if process
                    .send(&format!("setoption name {name} value {value}"))
                    .is_err()
                {
                    break;
                }
            }
        }
    }
    let opening = openings.opening(perturbation.iteration - 1, rules)?;
    let [plus_process, minus_process] = processes;
    let plus_seat = Seat {
        spec: &plus,
        process: plus_process,
        log: None,
    };
    let minus_seat = Seat {
        spec: &minus,
        process: minus_process,
        log: None,
    };
    let (seats, plus_color) = if game == 0 {
        ([plus_seat, minus_seat], Color::White)
    } else {
        ([minus_seat, plus_seat], Color::Black)
    };
    let played = play_game(seats, &opening, rules, &Adjudication::default(), stop);
    Ok(played.end.map(|end| end.result.points(plus_color)))
}

fn describe(spsa: &Spsa) -> String {
    spsa.plan
        .params
        .iter()
        .zip(spsa.rounded())
        .map(|(p, v)| format!("{}={v}", p.name))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `vato tune`: new or resumed from the log, until the planned iterations are done
/// or Ctrl-C (the log then holds every finished iteration).
pub fn run_cli(args: TuneArgs, out: &mut dyn Write) -> Result<()> {
    let spec = EngineSpec::from_words(&[], &args.engine, 1)
        .map_err(|e| anyhow!("{e} (keys: {ENGINE_KEYS})"))?;
    let stop = crate::progress::stop_on_ctrl_c("abandoning the games in progress")?;
    let rules = args.rules();
    let mut spsa = match std::fs::read_to_string(&args.log) {
        Ok(text) => {
            let spsa = Spsa::from_log(&text).map_err(|e| anyhow!("{}: {e}", args.log.display()))?;
            let names: Vec<&str> = spsa.plan.params.iter().map(|p| p.name.as_str()).collect();
            let given: Vec<&str> = args
                .param
                .iter()
                .map(|p| p.split('=').next().unwrap_or(p).trim())
                .collect();
            if spsa.plan.iterations != args.iterations || (!given.is_empty() && given != names) {
                writeln!(
                    out,
                    "note: the log's plan is kept ({} iterations of {}); the command line's differs",
                    spsa.plan.iterations,
                    names.join(", ")
                )?;
            }
            writeln!(
                out,
                "resuming {} after {} of {} iterations",
                args.log.display(),
                spsa.done(),
                spsa.plan.iterations
            )?;
            spsa
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let spsa = Spsa::new(new_plan(&args, &spec, &stop)?);
            write_atomically(&args.log, spsa.log_text().as_bytes())?;
            spsa
        }
        Err(e) => bail!("cannot read {}: {e}", args.log.display()),
    };
    let openings = match &args.openings {
        Some(path) => OpeningSource::List(read_openings(path, rules)?),
        None => OpeningSource::Random {
            turns: args.random_openings,
            seed: spsa.plan.seed,
        },
    };
    writeln!(
        out,
        "tuning {} parameters over {} iterations (r_end {}, seed {}), engine {} {}",
        spsa.plan.params.len(),
        spsa.plan.iterations,
        spsa.plan.r_end,
        spsa.plan.seed,
        spec.command,
        spec.limits
    )?;
    writeln!(out, "start: {}", describe(&spsa))?;
    let pairs_per_step = (args.concurrency / 2).max(1);
    let plan = spsa.plan.clone();
    let setting = Setting {
        spec: &spec,
        plan: &plan,
        openings: &openings,
        rules,
    };
    let games_at_once = args.concurrency.clamp(1, 2 * pairs_per_step);
    let mut slots: Vec<Processes> = (0..2 * pairs_per_step).map(|_| [None, None]).collect();
    let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
    while spsa.done() < spsa.plan.iterations && !stop.load(Ordering::Relaxed) {
        let first = spsa.done() + 1;
        let last = (first + pairs_per_step as u64 - 1).min(spsa.plan.iterations);
        let perturbations: Vec<Perturbation> =
            (first..=last).map(|k| spsa.perturbation(k)).collect();
        // Game g of the step: pair g / 2, colours g % 2; at most `games_at_once` run together.
        let games = 2 * perturbations.len();
        let mut points: Vec<Option<f64>> = Vec::with_capacity(games);
        for chunk_start in (0..games).step_by(games_at_once) {
            let chunk_end = (chunk_start + games_at_once).min(games);
            let outcomes: Vec<Result<Option<f64>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = slots[chunk_start..chunk_end]
                    .iter_mut()
                    .enumerate()
                    .map(|(offset, processes)| {
                        let g = chunk_start + offset;
                        let (setting, p, stop) = (&setting, &perturbations[g / 2], &*stop);
                        scope.spawn(move || play_half(setting, p, g % 2, processes, stop))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(anyhow!("a game thread panicked")))
                    })
                    .collect()
            });
            for outcome in outcomes {
                points.push(outcome?);
            }
        }
        // A game cut short by Ctrl-C leaves its step unplayed.
        let Some(points) = points.into_iter().collect::<Option<Vec<f64>>>() else {
            break;
        };
        for (perturbation, pair) in perturbations.iter().zip(points.chunks(2)) {
            let plus = pair[0] + pair[1];
            let result = (2.0 * plus - 2.0).round() as i32;
            match result.signum() {
                1 => wins += 1,
                0 => draws += 1,
                _ => losses += 1,
            }
            spsa.update(perturbation, result);
        }
        write_atomically(&args.log, spsa.log_text().as_bytes())?;
        let done = spsa.done();
        if args.report_every > 0 && (done % args.report_every == 0 || done == spsa.plan.iterations)
        {
            writeln!(
                out,
                "iteration {done}/{}: pairs this run +{wins} ={draws} -{losses} (plus side's view); {}",
                spsa.plan.iterations,
                describe(&spsa)
            )?;
        }
    }
    for slot in slots {
        for process in slot.into_iter().flatten() {
            process.quit();
        }
    }
    let options: Vec<String> = spsa
        .plan
        .params
        .iter()
        .zip(spsa.rounded())
        .map(|(p, v)| format!("option.{}={v}", p.name))
        .collect();
    writeln!(
        out,
        "after {} iterations: {}",
        spsa.done(),
        options.join(" ")
    )?;
    if stop.load(Ordering::Relaxed) {
        bail!("interrupted; run the same command again to resume");
    }
    Ok(())
}
