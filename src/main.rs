//! The `suanfan` command line.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            if e.is_broken_pipe() {
                return ExitCode::SUCCESS;
            }
            eprintln!("suanfan: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
