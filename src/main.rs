//! The `suanfan` command line.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    keep_onnxruntime_quiet();
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

/// The Linux library of the onnxruntime 1.31.1 wheel (the one suanfan loads) queues usage
/// events (a device id, the system, sessions) in `~/.cache/Microsoft/DeveloperTools` and, in a
/// process that runs a while (`live`), looks up Microsoft's collector to send them. Its switch
/// `ORT_DISABLE_TELEMETRY` is read once, when the library starts; `DisableTelemetryEvents`
/// (`runtime.rs`) comes too late for the first event and leaves the uploader running. Set
/// here unless the user set it: a scorer of mahjong photos reports nothing to anyone.
#[allow(unsafe_code)]
fn keep_onnxruntime_quiet() {
    if std::env::var_os("ORT_DISABLE_TELEMETRY").is_none() {
        // SAFETY: the first thing `main` does: no other thread exists yet that could read
        // the environment while it changes, and no library has been loaded that starts one.
        unsafe { std::env::set_var("ORT_DISABLE_TELEMETRY", "1") };
    }
}
