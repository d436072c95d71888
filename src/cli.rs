//! Subcommands, flags, and exit codes: 0 success, 1 a failure while running, 2 bad input.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use suanfan::audit::{count, count_verb};
use suanfan::explain;
use suanfan::json;
use suanfan::notation;
use suanfan::scoring::{self, Preset, RuleSet, WinContext};
use suanfan::tile::Wind;

#[derive(Parser, Debug)]
#[command(
    name = "suanfan",
    version,
    about = "算番 — scores Chinese Official Mahjong (MCR) hands and explains the score"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Score a winning hand written in bracket notation, e.g. `[123m,1][EEE,2]456p789s5m5m`.
    Score(ScoreArgs),
    /// List the tiles a 13-tile hand waits on, with the best score for each.
    Waits(WaitsArgs),
    /// Read a winning hand from photos, score it and explain the score.
    Scan(ScanArgs),
    /// Watch a table through a camera, a video, a stream or a folder of frames and score each
    /// hand laid down once it holds still.
    Live(LiveArgs),
    /// Check a match's score sheet (CSV) hand by hand: payments, zero sums, running totals,
    /// the minimum, winds, and the fans of every hand the sheet writes out.
    Audit(AuditArgs),
    /// Merge the audits of several tables (each `audit --out DIR`, run as independent jobs)
    /// into one summary.
    MergeAudits(MergeArgs),
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// The folders the audit jobs wrote (each with its audit.json).
    #[arg(required = true)]
    dirs: Vec<std::path::PathBuf>,
    /// Write summary.json, summary.csv and index.html into this folder.
    #[arg(long, value_name = "DIR")]
    out: std::path::PathBuf,
}

#[derive(Args, Debug)]
struct AuditArgs {
    /// The score sheet (CSV; see the README for the format, datasets/score-sheet-template.csv).
    sheet: std::path::PathBuf,
    /// Write audit.csv, audit.json and report.html into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<std::path::PathBuf>,
    /// Rule set, instead of the sheet's `# rules:` line.
    #[arg(long, value_enum)]
    rules: Option<Rules>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// A recording of the match: a video file, or a folder of frames or photos. The hand of
    /// each winning row is read from the recordings, in order. Repeat for several (played one
    /// after another: the sheet's `time` counts from the start of the first).
    #[arg(long = "recording", value_name = "VIDEO|DIR")]
    recordings: Vec<String>,
    /// Frames a second decoded from the recordings.
    #[arg(long, default_value_t = 2.0)]
    fps: f64,
    /// Recordings read at once, each with its own models (default: one per core, at most one
    /// per recording).
    #[arg(long)]
    jobs: Option<usize>,
    /// Threads for the models, shared out among the jobs (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// ONNX Runtime library (libonnxruntime.so.1.31.1); found automatically otherwise.
    #[arg(long)]
    onnxruntime: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
struct LiveArgs {
    /// `camera` (or `camera:N`, `/dev/videoN`), a video file, a stream URL, or a folder of
    /// images played as frames; `none` opens the window with no source (photos and hands
    /// only).
    #[arg(default_value = "camera")]
    source: String,
    /// No window: print one line per locked hand (JSON with --format json).
    #[arg(long)]
    headless: bool,
    #[command(flatten)]
    when: Circumstances,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Frames per second taken from a video or camera (and the rate of a folder's frames).
    #[arg(long, default_value_t = 5.0)]
    fps: f64,
    /// Play a video file at its own speed, dropping frames the models cannot keep up with,
    /// as with a camera.
    #[arg(long)]
    realtime: bool,
    /// Seconds the picture must hold still before a hand locks.
    #[arg(long, default_value_t = 0.6)]
    hold: f64,
    /// Print every frame's status on stderr; in the window, redraw continuously and print
    /// the frame rate every 5 s.
    #[arg(long)]
    verbose: bool,
    /// In the window: keep each hand ("Next hand") as a row of this score sheet (CSV, the
    /// format `suanfan audit` reads).
    #[arg(long, value_name = "SHEET.csv")]
    log: Option<std::path::PathBuf>,
    /// The four players for --log, in their seats East, South, West, North at hand 1.
    #[arg(long, default_value = "East,South,West,North")]
    players: String,
    /// ONNX Runtime library (libonnxruntime.so.1.31.1); found automatically otherwise.
    #[arg(long)]
    onnxruntime: Option<std::path::PathBuf>,
    /// Threads for the models.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

#[derive(Args, Debug)]
struct ScanArgs {
    /// Images (JPEG, PNG, WebP; HEIC, HEIF, AVIF with libheif's heif-dec) or folders of them.
    #[arg(required = true)]
    paths: Vec<std::path::PathBuf>,
    #[command(flatten)]
    when: Circumstances,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// ONNX Runtime library (libonnxruntime.so.1.31.1); found automatically otherwise.
    #[arg(long)]
    onnxruntime: Option<std::path::PathBuf>,
    /// Use this tile finder model instead of the embedded one.
    #[arg(long)]
    finder_model: Option<std::path::PathBuf>,
    /// Use this tile classifier model instead of the embedded one.
    #[arg(long)]
    classifier_model: Option<std::path::PathBuf>,
    /// Use this tile classifier for soft (blurred) photos instead of the embedded one.
    #[arg(long)]
    soft_classifier_model: Option<std::path::PathBuf>,
    /// Threads for the models.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Write the photo with every tile outlined and labelled and the fan table beside it
    /// (PNG). With several photos, each gets OUT-<photo name>.png.
    #[arg(long, value_name = "OUT.png")]
    annotate: Option<std::path::PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum LangArg {
    En,
    Zh,
}

impl LangArg {
    fn lang(self) -> explain::Lang {
        match self {
            LangArg::En => explain::Lang::En,
            LangArg::Zh => explain::Lang::Zh,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Rules {
    Mil,
    Wmo2006,
    China1998,
    Elementary,
}

impl Rules {
    fn rule_set(self) -> RuleSet {
        let p = match self {
            Rules::Mil => Preset::Mil,
            Rules::Wmo2006 => Preset::Wmo2006,
            Rules::China1998 => Preset::China1998,
            Rules::Elementary => Preset::Elementary,
        };
        RuleSet::preset(p)
    }
}

#[derive(Args, Debug)]
struct Circumstances {
    /// Won by self-draw (自摸); otherwise on a discard.
    #[arg(long)]
    self_drawn: bool,
    /// Seat wind: E, S, W or N.
    #[arg(long, value_parser = parse_wind)]
    seat: Option<Wind>,
    /// Prevalent (round) wind: E, S, W or N.
    #[arg(long, value_parser = parse_wind)]
    prevalent: Option<Wind>,
    /// The last tile of the wall (妙手回春 self-drawn, 海底捞月 on a discard).
    #[arg(long)]
    last_tile: bool,
    /// A kong was involved (杠上开花 self-drawn, 抢杠和 on a discard).
    #[arg(long)]
    kong: bool,
    /// The winning tile is the last of its kind (和绝张).
    #[arg(long)]
    fourth: bool,
    /// Number of flowers and seasons, 0 to 8 (1 point each, not towards the minimum).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=8))]
    flowers: Option<u8>,
    /// Language of the labels of text output (fan names are always in both).
    #[arg(long, value_enum, default_value_t = LangArg::En)]
    lang: LangArg,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = Rules::Mil)]
    rules: Rules,
}

impl Circumstances {
    /// The circumstances for reading a picture, with which of them were given.
    fn given(&self) -> suanfan::scan::Given {
        suanfan::scan::Given {
            context: self.apply(None),
            flowers_given: self.flowers.is_some(),
            winds_given: self.seat.is_some() || self.prevalent.is_some(),
            self_drawn_given: self.self_drawn,
        }
    }

    fn apply(&self, base: Option<WinContext>) -> WinContext {
        let mut c = base.unwrap_or_default();
        c.self_drawn |= self.self_drawn;
        c.last_tile |= self.last_tile;
        c.kong |= self.kong;
        c.fourth_tile |= self.fourth;
        if let Some(w) = self.seat {
            c.seat_wind = w;
        }
        if let Some(w) = self.prevalent {
            c.prevalent_wind = w;
        }
        if let Some(n) = self.flowers {
            c.flowers = n;
        }
        c
    }
}

fn parse_wind(s: &str) -> Result<Wind, String> {
    Wind::parse(s).ok_or_else(|| format!("'{s}' is not a wind: use E, S, W or N"))
}

#[derive(Args, Debug)]
struct ScoreArgs {
    /// The hand: melds in brackets, standing tiles, the winning tile last. Optional suffix
    /// `|ESffff|N`: prevalent and seat wind, flags self-drawn/fourth/last/kong, flowers.
    #[arg(required_unless_present = "batch", allow_hyphen_values = true)]
    notation: Option<String>,
    #[command(flatten)]
    when: Circumstances,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Read corpus JSON lines on stdin and write one JSON answer per line.
    #[arg(long, conflicts_with = "notation")]
    batch: bool,
    /// With --batch: threads answering lines (default: one per core). Answers stay in input
    /// order.
    #[arg(long, requires = "batch", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
}

#[derive(Args, Debug)]
struct WaitsArgs {
    /// The 13-tile hand (melds in brackets, then the standing tiles).
    #[arg(allow_hyphen_values = true)]
    notation: String,
    #[command(flatten)]
    when: Circumstances,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// A command-line failure with its exit code.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit code 2.
    Input(String),
    /// A missing library or model: exit code 3.
    Setup(String),
    Io(io::Error),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Setup(_) => 3,
            CliError::Io(_) => 1,
        }
    }
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(s) | CliError::Setup(s) => f.write_str(s),
            CliError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        CliError::Io(e)
    }
}

pub fn run() -> Result<ExitCode, CliError> {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return Ok(ExitCode::from(code));
        }
    };
    match cli.command {
        Command::Score(a) if a.batch => batch(&a),
        Command::Score(a) => score(&a),
        Command::Waits(a) => waits(&a),
        Command::Scan(a) => scan(&a),
        Command::Live(a) => live(&a),
        Command::Audit(a) => audit(&a),
        Command::MergeAudits(a) => merge_audits(&a),
    }
}

/// Image files under the given paths, folders expanded (sorted), in the order given.
fn image_files(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(p)
                .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
                .unwrap_or_default();
            v.retain(|f| {
                // Other image formats are listed too: each gets a line saying it is not read.
                suanfan::capture::is_image_name(f)
                    || f.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                        matches!(
                            e.to_ascii_lowercase().as_str(),
                            "gif" | "bmp" | "tif" | "tiff"
                        )
                    })
            });
            v.sort();
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// `merge-audits`: exit code 0 when every table was read and every hand agrees, 1 otherwise.
fn merge_audits(a: &MergeArgs) -> Result<ExitCode, CliError> {
    use suanfan::audit::merge;
    let tables: Vec<merge::Table> = a.dirs.iter().map(|d| merge::read_table(d)).collect();
    std::fs::create_dir_all(&a.out)?;
    let write = |name: &str, bytes: &[u8]| {
        let p = a.out.join(name);
        std::fs::write(&p, bytes)
            .map_err(|e| CliError::Io(io::Error::new(e.kind(), format!("{}: {e}", p.display()))))
    };
    let csv = merge::to_csv(&tables).map_err(|e| CliError::Io(io::Error::other(e)))?;
    write("summary.csv", &csv)?;
    let json = merge::to_json(&tables);
    write("summary.json", format!("{json:#}\n").as_bytes())?;
    write("index.html", merge::to_html(&tables, &a.out).as_bytes())?;
    let n = |key: &str| json[key].as_u64().unwrap_or(0);
    println!(
        "{}, {}, {}, {} unsure, {} unreadable: {}",
        count(n("tables"), "table"),
        count(n("hands"), "hand"),
        count_verb(n("disagree"), "disagree"),
        n("unsure"),
        n("unreadable"),
        a.out.join("index.html").display()
    );
    Ok(if merge::all_agree(&tables) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The recordings of an audit, read.
fn read_recordings(
    a: &AuditArgs,
    rules: &RuleSet,
) -> Result<Vec<suanfan::audit::recording::Recording>, CliError> {
    use suanfan::audit::recording::{ReadOptions, read_all};
    if !(a.fps > 0.0 && a.fps <= 60.0) {
        return Err(CliError::Input(format!(
            "--fps {}: give a rate between 0 and 60 frames a second",
            a.fps
        )));
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let vision = suanfan::vision::VisionConfig {
        onnxruntime: a.onnxruntime.clone(),
        threads: a.threads.unwrap_or(cores).max(1),
        ..suanfan::vision::VisionConfig::default()
    };
    let opts = ReadOptions {
        fps: a.fps,
        ..ReadOptions::default()
    };
    let jobs = a.jobs.unwrap_or(cores).max(1);
    read_all(&a.recordings, opts, &vision, rules, jobs, !a.quiet)
        .map_err(|e| CliError::Setup(e.to_string()))
}

/// `audit`: exit code 0 when every hand agrees, 1 when some hand disagrees, 3 when none
/// disagrees but the recording could not confirm some, 2 for a sheet that cannot be read.
fn audit(a: &AuditArgs) -> Result<ExitCode, CliError> {
    use suanfan::audit::{self, report};
    let bytes = std::fs::read(&a.sheet)
        .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", a.sheet.display())))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        CliError::Input(format!(
            "{}: not UTF-8 text: save the sheet as CSV in UTF-8",
            a.sheet.display()
        ))
    })?;
    let mut sheet = audit::sheet::read(&text)
        .map_err(|e| CliError::Input(format!("{}: {e}", a.sheet.display())))?;
    if let Some(r) = a.rules {
        sheet.header.rules = r.rule_set();
    }
    let result = if a.recordings.is_empty() {
        audit::audit(&sheet)
    } else {
        let recs = read_recordings(a, &sheet.header.rules)?;
        audit::audit_recorded(&sheet, Some(&recs))
    };
    if let Some(dir) = &a.out {
        let write = |name: &str, bytes: &[u8]| {
            std::fs::write(dir.join(name), bytes).map_err(|e| {
                CliError::Io(io::Error::new(
                    e.kind(),
                    format!("{}: {e}", dir.join(name).display()),
                ))
            })
        };
        std::fs::create_dir_all(dir)?;
        let csv = report::to_csv(&result).map_err(|e| CliError::Io(io::Error::other(e)))?;
        write("audit.csv", &csv)?;
        write(
            "audit.json",
            format!("{:#}\n", report::to_json(&result)).as_bytes(),
        )?;
        write("report.html", report::to_html(&result).as_bytes())?;
    }
    let mut out = io::stdout().lock();
    match a.format {
        Format::Text => out.write_all(report::to_text(&result).as_bytes())?,
        Format::Json => writeln!(out, "{}", report::to_json(&result))?,
    }
    Ok(if result.disagreements() > 0 {
        ExitCode::from(1)
    } else if result.unsure() > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// The `live` window.
#[cfg(feature = "gui")]
fn window(
    a: &LiveArgs,
    opts: suanfan::capture::SourceOptions,
    newest_only: bool,
) -> Result<ExitCode, CliError> {
    use suanfan::gui::{WindowOptions, run_window};
    let vision = suanfan::vision::VisionConfig {
        onnxruntime: a.onnxruntime.clone(),
        threads: a.threads,
        ..suanfan::vision::VisionConfig::default()
    };
    let track = suanfan::track::TrackConfig {
        hold_seconds: a.hold,
        ..suanfan::track::TrackConfig::default()
    };
    let source = (a.source != "none").then(|| a.source.clone());
    let names: Vec<String> = a.players.split(',').map(|p| p.trim().to_string()).collect();
    let players: [String; 4] = names
        .try_into()
        .map_err(|_| CliError::Input("--players needs four names separated by commas".into()))?;
    if players.iter().any(|p| p.is_empty()) {
        return Err(CliError::Input("--players: a name is empty".into()));
    }
    run_window(WindowOptions {
        source,
        source_options: opts,
        vision,
        track,
        newest_only,
        log: a.log.clone().map(|l| (l, players)),
        verbose: a.verbose,
    })
    .map_err(CliError::Setup)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "gui"))]
fn window(_: &LiveArgs, _: suanfan::capture::SourceOptions, _: bool) -> Result<ExitCode, CliError> {
    Err(CliError::Setup(
        "this suanfan was built without the window (cargo feature `gui`): run `suanfan live --headless SOURCE`".to_string(),
    ))
}

fn live(a: &LiveArgs) -> Result<ExitCode, CliError> {
    use suanfan::capture::{self, SourceOptions};
    use suanfan::live;
    use suanfan::track::TrackConfig;
    use suanfan::vision::{Recognizer, VisionConfig};
    check_live_args(a)?;
    let rules = a.when.rules.rule_set();
    let given = a.when.given();
    let opts = SourceOptions {
        fps: a.fps,
        realtime: a.realtime,
        ..SourceOptions::default()
    };
    let newest_only = a.realtime || capture::is_camera(&a.source) || a.source.contains("://");
    if !a.headless {
        // In the window a video plays at its own speed, as a camera would show the table.
        let opts = SourceOptions {
            realtime: !std::path::Path::new(&a.source).is_dir(),
            ..opts
        };
        return window(a, opts, true);
    }
    let source = capture::open(&a.source, opts).map_err(|e| CliError::Input(e.to_string()))?;
    eprintln!("suanfan: reading {}", source.describe());
    let cfg = VisionConfig {
        onnxruntime: a.onnxruntime.clone(),
        threads: a.threads,
        ..VisionConfig::default()
    };
    let mut rec = Recognizer::new(cfg).map_err(|e| CliError::Setup(e.to_string()))?;
    let track = TrackConfig {
        hold_seconds: a.hold,
        ..TrackConfig::default()
    };
    let mut out = io::stdout().lock();
    let mut write_error = None;
    let summary = live::run(
        source,
        live::RunOptions {
            newest_only,
            skip: live::Skip::Still,
        },
        &mut rec,
        &given,
        &rules,
        track,
        |event| {
            if write_error.is_none() {
                write_error = write_live_event(&mut out, a, event).err();
            }
        },
    )
    .map_err(|e| CliError::Setup(e.to_string()))?;
    if let Some(e) = write_error {
        return Err(CliError::Io(e));
    }
    Ok(report_live_summary(&summary, &track))
}

/// `--fps` and `--hold` within what `live` can use.
fn check_live_args(a: &LiveArgs) -> Result<(), CliError> {
    let fps_ok = a.fps > 0.0 && a.fps <= 60.0;
    let hold_ok = (0.0..=30.0).contains(&a.hold);
    if fps_ok && hold_ok {
        Ok(())
    } else {
        Err(CliError::Input(
            "--fps must be above 0 and at most 60, --hold between 0 and 30 seconds".to_string(),
        ))
    }
}

/// One event of `live --headless`: a locked hand to `out` (text or JSON), an unreadable frame
/// and, with `--verbose`, every frame's status to standard error.
fn write_live_event(
    out: &mut impl Write,
    a: &LiveArgs,
    event: suanfan::live::Event,
) -> io::Result<()> {
    use suanfan::live::{self, Event};
    use suanfan::scan::to_text_in;
    match event {
        Event::Locked(l) => {
            match a.format {
                Format::Json => writeln!(out, "{}", live::to_json(&l))?,
                Format::Text => writeln!(
                    out,
                    "== {:.1} s, frame {} (weakest tile {:.0}%)\n{}",
                    l.seconds,
                    l.index,
                    100.0 * l.confidence,
                    to_text_in(&l.outcome, a.when.lang.lang())
                )?,
            }
            out.flush()
        }
        Event::BadFrame(m) => {
            eprintln!("suanfan: {m} (skipped)");
            Ok(())
        }
        Event::Frame {
            index,
            seconds,
            status,
            ..
        } => {
            if a.verbose {
                eprintln!("frame {index} at {seconds:.2} s: {status:?}");
            }
            Ok(())
        }
    }
}

/// What `live --headless` read, to standard error, and its exit code: 1 when the source stopped
/// with an error.
fn report_live_summary(
    summary: &suanfan::live::Summary,
    track: &suanfan::track::TrackConfig,
) -> ExitCode {
    eprintln!(
        "suanfan: {} read ({} unreadable), {} locked; the models read {} (the others still: a locked hand or no tiles), {:.0} ms each",
        count(summary.frames, "frame"),
        summary.bad_frames,
        count(summary.locked as u64, "hand"),
        summary.frames_read,
        summary.ms_per_frame
    );
    if summary.locked == 0 && summary.frames > 0 && summary.failure.is_none() {
        eprintln!(
            "suanfan: no hand held still long enough to lock (a hand locks once its picture is still for {:.1} s over {} frames or more); to score single photos, use `suanfan scan`",
            track.hold_seconds, track.min_frames
        );
    }
    match &summary.failure {
        Some(f) => {
            eprintln!("suanfan: the source stopped: {f}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

fn scan(a: &ScanArgs) -> Result<ExitCode, CliError> {
    use suanfan::scan::{decode_ahead, scan_photo, to_json, to_text_in};
    use suanfan::vision::{Recognizer, VisionConfig};
    let rules = a.when.rules.rule_set();
    let given = a.when.given();
    let cfg = VisionConfig {
        onnxruntime: a.onnxruntime.clone(),
        finder_model: a.finder_model.clone(),
        classifier_model: a.classifier_model.clone(),
        soft_classifier_model: a.soft_classifier_model.clone(),
        threads: a.threads,
        ..VisionConfig::default()
    };
    let files = image_files(&a.paths);
    if files.is_empty() {
        return Err(CliError::Input(
            "no images found (give JPEG, PNG, WebP or HEIC files, or folders holding them)"
                .to_string(),
        ));
    }
    let several = files.len() > 1;
    // The photos decode on their own thread while the models load and read.
    let photos = decode_ahead(files);
    let mut rec = Recognizer::new(cfg).map_err(|e| CliError::Setup(e.to_string()))?;
    let fonts = a
        .annotate
        .as_ref()
        .map(|_| suanfan::annotate::Fonts::load());
    let mut out = io::stdout().lock();
    let mut failed = 0;
    for (f, photo, ms_decode) in photos {
        match photo.and_then(|p| scan_photo(&mut rec, &f, p, ms_decode, &given, &rules)) {
            Ok((o, photo)) => {
                if let (Some(target), Some(fonts)) = (&a.annotate, &fonts) {
                    let target = if !several {
                        target.clone()
                    } else {
                        let stem = target
                            .file_stem()
                            .and_then(|s| s.to_str())
                            .unwrap_or("annotated");
                        let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or("photo");
                        target.with_file_name(format!("{stem}-{name}.png"))
                    };
                    if let Err(e) = suanfan::annotate::write(&photo, &o, fonts, &target) {
                        eprintln!("suanfan: cannot write the annotated photo {e}");
                        failed += 1;
                    }
                }
                match a.format {
                    Format::Text => {
                        out.write_all(to_text_in(&o, a.when.lang.lang()).as_bytes())?;
                        writeln!(out)?;
                    }
                    Format::Json => writeln!(out, "{}", to_json(&o))?,
                }
            }
            Err(e) => {
                failed += 1;
                match a.format {
                    Format::Text => eprintln!("suanfan: {e}"),
                    Format::Json => writeln!(
                        out,
                        "{}",
                        serde_json::json!({"image": f.display().to_string(), "error": e.to_string()})
                    )?,
                }
            }
        }
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn score(a: &ScoreArgs) -> Result<ExitCode, CliError> {
    let text = a.notation.as_deref().unwrap_or_default();
    let parsed =
        notation::parse(text).map_err(|e| CliError::Input(format!("bad notation: {e}")))?;
    let ctx = a.when.apply(parsed.context);
    let rules = a.when.rules.rule_set();
    let s = scoring::score(&parsed.hand, &ctx, &rules).map_err(|e| match e {
        scoring::HandError::NotWinning => {
            CliError::Input(format!("{e} under the {} rules", rules.preset.name()))
        }
        e => CliError::Input(e.to_string()),
    })?;
    let mut out = io::stdout().lock();
    match a.format {
        Format::Text => out.write_all(explain::score_text_in(&s, a.when.lang.lang()).as_bytes())?,
        Format::Json => writeln!(out, "{}", json::score_json(&s))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `score --batch`: one answer line for every input line, in order, whatever the line holds.
fn batch(a: &ScoreArgs) -> Result<ExitCode, CliError> {
    let rules = a.when.rules.rule_set();
    let threads = a.threads.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    suanfan::batch::run(&mut input, &mut out, &rules, threads)?;
    Ok(ExitCode::SUCCESS)
}

fn waits(a: &WaitsArgs) -> Result<ExitCode, CliError> {
    // Parse as a hand whose "winning tile" is the last standing tile, then put it back.
    let parsed =
        notation::parse(&a.notation).map_err(|e| CliError::Input(format!("bad notation: {e}")))?;
    let mut concealed = parsed.hand.concealed.clone();
    concealed.push(parsed.hand.win_tile);
    let w = scoring::Waiting {
        melds: parsed.hand.melds.clone(),
        concealed,
    };
    let ctx = a.when.apply(parsed.context);
    if ctx.self_drawn {
        return Err(CliError::Input(
            "waits shows every wait both on a discard and self-drawn: leave out --self-drawn (and the self-drawn flag of the suffix)"
                .to_string(),
        ));
    }
    let rules = a.when.rules.rule_set();
    let n = w.melds.len() * 3 + w.concealed.len();
    if n != 13 {
        return Err(CliError::Input(format!(
            "waits needs a hand of 13 tiles before the winning tile (melds count 3 each): this one has {n}"
        )));
    }
    let list = scoring::waits(&w, &ctx, &rules).map_err(|e| CliError::Input(e.to_string()))?;
    let mut out = io::stdout().lock();
    match a.format {
        Format::Text => {
            let hand_text = format!(
                "{}{}",
                w.melds
                    .iter()
                    .map(notation::format_meld)
                    .collect::<String>(),
                notation::format_tiles(&w.concealed)
            );
            out.write_all(explain::waits_text(&hand_text, &list, rules.preset.name()).as_bytes())?;
        }
        Format::Json => {
            let v: Vec<serde_json::Value> = list
                .iter()
                .map(|x| {
                    serde_json::json!({
                        "tile": x.tile.to_string(),
                        "left": 4 - x.held,
                        "discard": json::score_json(&x.discard),
                        "self_drawn": json::score_json(&x.self_drawn),
                        "dropped": x.dropped,
                    })
                })
                .collect();
            writeln!(
                out,
                "{}",
                serde_json::json!({"rules": rules.preset.name(), "waits": v})
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
