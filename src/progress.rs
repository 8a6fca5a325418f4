//! Long jobs: stopping them with Ctrl-C, and their progress on standard error (a bar with
//! the rate and the time left on a terminal, drawn by `indicatif`, and where standard error
//! is a file or a pipe, a plain line now and then, so that the logs of batch runs stay
//! readable).

use anyhow::{Result, anyhow};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often a plain progress line is written when standard error is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// A flag that the first Ctrl-C sets, saying `what_happens` on standard error, so that a
/// long job can end cleanly; a second Ctrl-C quits at once (exit status 130). A process
/// can install this once.
pub fn stop_on_ctrl_c(what_happens: &'static str) -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("Stopping: {what_happens} (Ctrl-C again quits at once)");
    })
    .map_err(|e| anyhow!("cannot install the Ctrl-C handler: {e}"))?;
    Ok(stop)
}

/// The progress of one job of a known size.
pub struct JobProgress {
    bar: ProgressBar,
    label: String,
    unit: &'static str,
    total: u64,
    started: Instant,
    /// When standard error is not a terminal: how often to write a plain line, if at all.
    plain_every: Option<Duration>,
    last_plain: Instant,
}

impl JobProgress {
    /// Starts showing the progress of `total` `unit`s of work named `label`. Off a
    /// terminal, a plain line is written every `plain_every` (never with `None`).
    pub fn new(
        label: &str,
        total: u64,
        unit: &'static str,
        plain_every: Option<Duration>,
    ) -> JobProgress {
        let terminal = std::io::stderr().is_terminal();
        let target = if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        let template = format!(
            "{{msg}} [{{bar:30}}] {{percent:>3}}% of {{human_len}} {unit}, \
             {{per_sec}}, {{eta}} left"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(label.to_string());
        let now = Instant::now();
        JobProgress {
            bar,
            label: label.to_string(),
            unit,
            total,
            started: now,
            plain_every: if terminal { None } else { plain_every },
            last_plain: now,
        }
    }

    /// Changes the job's size, for jobs that find their work as they go.
    pub fn set_total(&mut self, total: u64) {
        self.total = total;
        self.bar.set_length(total);
    }

    /// Records that `done` units are finished.
    pub fn set(&mut self, done: u64) {
        self.bar.set_position(done);
        if let Some(line) = self.due_line() {
            eprintln!("{line}");
        }
    }

    /// Shows the progress again while a unit takes long (one position of a sample may
    /// take minutes): the bar's rate and time left, or the plain line when it is due.
    pub fn tick(&mut self) {
        self.bar.tick();
        if let Some(line) = self.due_line() {
            eprintln!("{line}");
        }
    }

    /// The plain line, when one is written and the last is `plain_every` old.
    fn due_line(&mut self) -> Option<String> {
        let every = self.plain_every?;
        if self.last_plain.elapsed() < every {
            return None;
        }
        self.last_plain = Instant::now();
        Some(self.plain_line(self.bar.position()))
    }

    /// Runs `write` with the bar taken off the screen, for lines printed while it shows.
    pub fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        self.bar.suspend(write)
    }

    /// Takes the bar off the screen for good.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }

    fn plain_line(&self, done: u64) -> String {
        let done = done.min(self.total);
        let fraction = done as f64 / self.total.max(1) as f64;
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = if done == 0 {
            String::from("time left unknown")
        } else {
            format!(
                "about {:.0} s left",
                elapsed / done as f64 * (self.total - done) as f64
            )
        };
        format!(
            "  {}: {:5.1}% of {} {}, {left}",
            self.label,
            100.0 * fraction,
            self.total,
            self.unit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_the_fraction_and_the_time_left() {
        let progress = JobProgress::new("layer 3v2", 200, "positions", None);
        assert_eq!(
            progress.plain_line(0),
            "  layer 3v2:   0.0% of 200 positions, time left unknown"
        );
        assert!(
            progress
                .plain_line(50)
                .starts_with("  layer 3v2:  25.0% of 200 positions, about ")
        );
        progress.finish();
    }

    #[test]
    fn a_plain_line_is_due_again_though_no_unit_has_finished() {
        let mut progress = JobProgress::new("sample", 10, "positions", None);
        progress.set(3);
        assert_eq!(progress.due_line(), None, "no plain lines asked for");
        progress.plain_every = Some(Duration::ZERO);
        let line = progress.due_line().expect("due at once");
        assert!(line.starts_with("  sample:  30.0% of 10 positions, about "));
        progress.plain_every = Some(Duration::from_secs(3600));
        assert_eq!(progress.due_line(), None, "written a moment ago");
        progress.finish();
    }
}
