use anyhow::{Context, Result};
use clap::Parser;
use std::process::ExitCode;
use vato::cli::{Cli, init_logging, run_command};
use vato::protocol::session::{Output, run};

/// Errors end the program with one line on standard error (causes joined by colons),
/// never a backtrace, whatever the environment asks for.
fn main() -> ExitCode {
    match run_cli() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_cli() -> Result<()> {
    let cli = Cli::parse();
    init_logging(cli.log_level.as_deref())?;
    match cli.command {
        Some(command) => run_command(command, &mut std::io::stdout().lock()),
        None => {
            tracing::info!("protocol session started");
            // The input is read on a thread of its own, which a lock of standard input
            // cannot be sent to: it gets its own buffer.
            run(
                std::io::BufReader::new(std::io::stdin()),
                Output::new(Box::new(std::io::stdout())),
                cli.tablebase_path.as_deref(),
            )
            .context("cannot start the thread that reads the input")
        }
    }
}
