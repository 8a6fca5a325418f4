use anyhow::Result;
use clap::Parser;
use vato::cli::{Cli, run_command};

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(command) => run_command(command, &mut std::io::stdout().lock()),
        None => {
            eprintln!("the protocol session is not built yet; try `vato perft 5`");
            Ok(())
        }
    }
}
