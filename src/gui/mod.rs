//! The `live` window (eframe/egui): the picture with every tile outlined, the status, and the
//! side panel (`panel`) with the hand, the circumstances and the score explained.
//!
//! Threads: the capture thread and the models run in `live::run` on a worker thread that
//! sends events over a channel; the window drains it each frame and never waits on the
//! models. A photo opened (File field or drag and drop) is read on a thread of its own.

pub mod calculator;
mod face_art;
pub mod panel;
pub mod session;
pub mod tiles;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use eframe::egui::{self, Color32, ColorImage, Pos2, Stroke, TextureHandle, TextureOptions};
use image::RgbImage;

use crate::capture::{self, SourceOptions};
use crate::detection::Detection;
use crate::live::{self, Event};
use crate::scan::{Given, scan_file};
use crate::scoring::RuleSet;
use crate::track::{Status, TrackConfig};
use crate::vision::{Recognizer, VisionConfig};
use panel::Panel;

/// What the workers tell the window.
enum Message {
    Frame {
        image: Arc<RgbImage>,
        detections: Vec<Detection>,
        status: Status,
    },
    /// A hand to show: its tiles (source pixels), the picture, source pixels per image pixel.
    Hand {
        detections: Vec<Detection>,
        image: Option<(Arc<RgbImage>, f32)>,
        name: String,
    },
    Note(String),
    /// The source ended or stopped, and why: the status says so from then on.
    Ended(String),
}

/// How the window starts.
#[derive(Debug, Clone, Default)]
pub struct WindowOptions {
    /// A camera, video, stream or folder to watch; None: a calculator and photo reader only.
    pub source: Option<String>,
    pub source_options: SourceOptions,
    pub vision: VisionConfig,
    pub track: TrackConfig,
    pub newest_only: bool,
    /// Keep hands in this session log (score-sheet CSV), with these players.
    pub log: Option<(PathBuf, [String; 4])>,
    /// Redraw continuously and print the window's frame rate every 5 s (a measurement).
    pub verbose: bool,
}

/// Frames per second over the last two seconds of `times` (kept to those two seconds).
fn rate(times: &mut std::collections::VecDeque<Instant>, now: Instant) -> f64 {
    let window = std::time::Duration::from_secs(2);
    while times
        .front()
        .is_some_and(|t| now.duration_since(*t) > window)
    {
        times.pop_front();
    }
    match (times.front(), times.back()) {
        (Some(a), Some(b)) if times.len() > 1 && b > a => {
            (times.len() - 1) as f64 / b.duration_since(*a).as_secs_f64()
        }
        _ => 0.0,
    }
}

/// The window's state.
pub struct LiveApp {
    panel: Panel,
    inbox: Receiver<Message>,
    outbox: Sender<Message>,
    ctx: egui::Context,
    vision: VisionConfig,
    texture: Option<TextureHandle>,
    /// Size of the picture shown, and source pixels per picture pixel.
    picture: Option<([usize; 2], f32)>,
    detections: Vec<Detection>,
    status: Option<Status>,
    /// Whether the source has ended (or stopped): no frame will come.
    ended: bool,
    notes: Vec<String>,
    photo_path: String,
    /// The photo reader, started on the first photo (it keeps its models loaded).
    photos: Option<Sender<PathBuf>>,
    /// When the window was drawn, and when a picture from the models arrived (last 2 s).
    paints: std::collections::VecDeque<Instant>,
    pictures: std::collections::VecDeque<Instant>,
    verbose: bool,
    last_report: Instant,
}

impl std::fmt::Debug for LiveApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveApp")
            .field("notes", &self.notes)
            .finish()
    }
}

/// Loads a font with Chinese (the built-in one, else an installed one) as a fallback for all
/// text; false when there is none.
pub fn install_cjk_font(ctx: &egui::Context) -> bool {
    let Some(bytes) = crate::annotate::cjk_font_bytes() else {
        return false;
    };
    let mut fonts = egui::FontDefinitions::default();
    fonts
        .font_data
        .insert("cjk".into(), Arc::new(egui::FontData::from_owned(bytes)));
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts.families.entry(family).or_default().push("cjk".into());
    }
    ctx.set_fonts(fonts);
    tiles::set_chinese(true);
    true
}

impl LiveApp {
    /// A window over `opts.source` (if any); starts the worker.
    pub fn new(ctx: &egui::Context, opts: WindowOptions) -> LiveApp {
        let (outbox, inbox) = channel();
        let mut app = LiveApp {
            panel: Panel::default(),
            inbox,
            outbox,
            ctx: ctx.clone(),
            vision: opts.vision.clone(),
            texture: None,
            picture: None,
            detections: Vec::new(),
            status: None,
            ended: false,
            notes: Vec::new(),
            photo_path: String::new(),
            photos: None,
            paints: Default::default(),
            pictures: Default::default(),
            verbose: opts.verbose,
            last_report: Instant::now(),
        };
        if let Some((path, players)) = &opts.log {
            match session::Session::create(path, players.clone(), &RuleSet::default()) {
                Ok(s) => app.panel.session = Some(s),
                Err(e) => app.notes.push(format!(
                    "cannot write the session log {}: {e}",
                    path.display()
                )),
            }
        }
        if !install_cjk_font(ctx) {
            app.notes.push(
                "no font with Chinese: this build has none built in and none is installed (install fonts-droid-fallback; Chinese shows as boxes)"
                    .into(),
            );
        }
        if let Some(source) = opts.source.clone() {
            app.watch(source, opts);
        }
        app
    }

    /// The worker: capture → models → tracker, events to the window.
    fn watch(&mut self, source: String, opts: WindowOptions) {
        let tx = self.outbox.clone();
        let ctx = self.ctx.clone();
        std::thread::spawn(move || {
            let send = |m: Message| {
                let _ = tx.send(m);
                ctx.request_repaint();
            };
            let src = match capture::open(&source, opts.source_options) {
                Ok(s) => s,
                Err(e) => return send(Message::Note(e.to_string())),
            };
            let mut rec = match Recognizer::new(opts.vision.clone()) {
                Ok(r) => r,
                Err(e) => return send(Message::Note(e.to_string())),
            };
            let given = Given::default();
            let rules = RuleSet::default();
            // The newest frame's tiles, and whether any hand locked: a source that ends before
            // its picture held still (a folder of one photo) has its last frame scored as it is.
            let mut last: Vec<Detection> = Vec::new();
            let mut locked = false;
            let result = live::run(
                src,
                live::RunOptions {
                    newest_only: opts.newest_only,
                    skip: live::Skip::Still,
                },
                &mut rec,
                &given,
                &rules,
                opts.track,
                |e| match e {
                    Event::Frame {
                        image,
                        detections,
                        status,
                        ..
                    } => {
                        last.clone_from(&detections);
                        send(Message::Frame {
                            image,
                            detections,
                            status,
                        })
                    }
                    Event::Locked(l) => {
                        locked = true;
                        send(Message::Hand {
                            detections: l.outcome.detections.clone(),
                            image: None,
                            name: l.outcome.image.clone(),
                        })
                    }
                    Event::BadFrame(m) => send(Message::Note(m)),
                },
            );
            if result.is_ok() && !locked && !last.is_empty() {
                send(Message::Hand {
                    detections: last,
                    image: None,
                    name: source.clone(),
                });
                send(Message::Note(
                    "no hand held still before the source ended: its last frame is scored as it is"
                        .into(),
                ));
            }
            send(Message::Ended(match result {
                Ok(s) => match s.failure {
                    Some(f) => format!("the source stopped: {f}"),
                    None => format!(
                        "the source ended; {} of its frames were read (the window keeps only the newest frame while the models are busy)",
                        s.frames
                    ),
                },
                Err(e) => e.to_string(),
            }));
        });
    }

    /// Reads a photo on a thread of its own.
    fn open_photo(&mut self, path: PathBuf) {
        let worker = self.photos.get_or_insert_with(|| {
            photo_worker(self.vision.clone(), self.outbox.clone(), self.ctx.clone())
        });
        if worker.send(path).is_err() {
            self.notes
                .push("the photo reader stopped: restart the window".into());
        }
    }

    fn show_picture(&mut self, image: &RgbImage, scale: f32) {
        let size = [image.width() as usize, image.height() as usize];
        let color = ColorImage::from_rgb(size, image.as_raw());
        match &mut self.texture {
            Some(t) => t.set(color, TextureOptions::LINEAR),
            None => {
                self.texture = Some(
                    self.ctx
                        .load_texture("frame", color, TextureOptions::LINEAR),
                );
            }
        }
        self.picture = Some((size, scale));
    }

    /// Takes every message waiting; only the newest frame is shown.
    fn drain(&mut self) {
        let mut newest = None;
        while let Ok(m) = self.inbox.try_recv() {
            match m {
                Message::Frame { .. } => newest = Some(m),
                Message::Hand {
                    detections,
                    image,
                    name,
                } => {
                    if let Some((img, scale)) = image {
                        self.show_picture(&img, scale);
                        self.detections = detections.clone();
                        self.status = None;
                    }
                    self.panel.set_hand(detections);
                    if let Some(o) = &mut self.panel.outcome {
                        o.image = name;
                    }
                }
                Message::Note(n) => self.notes.push(n),
                Message::Ended(n) => {
                    self.notes.push(n);
                    self.ended = true;
                }
            }
        }
        if let Some(Message::Frame {
            image,
            detections,
            status,
        }) = newest
        {
            self.show_picture(&image, 1.0);
            self.detections = detections;
            self.status = Some(status);
            self.pictures.push_back(Instant::now());
        }
    }

    /// Counts a drawn frame; with `verbose`, asks for the next at once and reports the rates.
    fn count_frame(&mut self, ctx: &egui::Context) {
        let now = Instant::now();
        self.paints.push_back(now);
        let drawn = rate(&mut self.paints, now);
        let read = rate(&mut self.pictures, now);
        if self.verbose {
            ctx.request_repaint();
            if now.duration_since(self.last_report).as_secs() >= 5 {
                self.last_report = now;
                eprintln!(
                    "suanfan: window {drawn:.0} frames/s drawn, {read:.1} pictures/s taken (the models read those that may change the hand)"
                );
            }
        }
    }

    /// What the tracker is doing with the newest frame; once the source has ended, that it has
    /// (a hand locked stays "Locked").
    fn status_text(&self) -> String {
        match (&self.status, self.ended) {
            (Some(Status::Locked { .. }), _) => "Locked".to_string(),
            (Some(Status::Searching { tiles } | Status::HoldStill { tiles, .. }), true) => {
                format!("Source ended ({tiles} tiles)")
            }
            (None, true) => "Source ended".to_string(),
            (None, false) => String::new(),
            (Some(Status::Searching { tiles }), false) => format!("Searching ({tiles} tiles)"),
            (Some(Status::HoldStill { tiles, .. }), false) => format!("Hold still ({tiles} tiles)"),
        }
    }

    fn picture_ui(&mut self, ui: &mut egui::Ui) {
        let (Some(texture), Some((size, scale))) = (&self.texture, self.picture) else {
            ui.centered_and_justified(|ui| {
                ui.label("Open a photo (type its path above, or drop it here), or start with a camera or video: suanfan live SOURCE");
            });
            return;
        };
        let avail = ui.available_size();
        let k = (avail.x / size[0] as f32)
            .min(avail.y / size[1] as f32)
            .max(0.01);
        let shown = egui::vec2(size[0] as f32 * k, size[1] as f32 * k);
        let response = ui.add(egui::Image::new((texture.id(), shown)));
        let rect = response.rect;
        // Source pixels → picture pixels → screen.
        let to_screen =
            |p: [f32; 2]| Pos2::new(rect.min.x + p[0] / scale * k, rect.min.y + p[1] / scale * k);
        let painter = ui.painter_at(rect);
        let locked = matches!(self.status, Some(Status::Locked { .. }) | None);
        let colour = if locked {
            Color32::from_rgb(40, 200, 80)
        } else {
            Color32::YELLOW
        };
        // Once locked, the other players' tiles (the whole table in view) are drawn dim.
        let others = if locked {
            self.panel.others_bounds()
        } else {
            Vec::new()
        };
        for d in &self.detections {
            let c = d.center();
            let other = others
                .iter()
                .any(|b| c[0] > b[0] && c[0] < b[2] && c[1] > b[1] && c[1] < b[3]);
            let (width, colour) = if other {
                (1.0, Color32::from_rgb(100, 100, 160))
            } else {
                (2.0, colour)
            };
            let pts: Vec<Pos2> = d.corners.iter().map(|&c| to_screen(c)).collect();
            painter.add(egui::Shape::closed_line(pts, Stroke::new(width, colour)));
        }
    }
}

/// A thread that reads the photos sent to it with one set of models.
fn photo_worker(vision: VisionConfig, tx: Sender<Message>, ctx: egui::Context) -> Sender<PathBuf> {
    let (paths, inbox) = channel::<PathBuf>();
    std::thread::spawn(move || {
        let mut rec = match Recognizer::new(vision) {
            Ok(r) => r,
            Err(e) => {
                let _ = tx.send(Message::Note(e.to_string()));
                ctx.request_repaint();
                return;
            }
        };
        for path in inbox {
            let message = match scan_file(&mut rec, &path, &Given::default(), &RuleSet::default()) {
                Ok((o, img)) => Message::Hand {
                    detections: o.detections,
                    image: Some((Arc::new(img), o.scale)),
                    name: path.display().to_string(),
                },
                Err(e) => Message::Note(e.to_string()),
            };
            if tx.send(message).is_err() {
                return;
            }
            ctx.request_repaint();
        }
    });
    paths
}

impl eframe::App for LiveApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.drain();
        self.count_frame(ctx);
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        for p in dropped {
            self.open_photo(p);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::Panel::top("bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label("Photo:");
                ui.text_edit_singleline(&mut self.photo_path);
                if ui.button("Open").clicked() && !self.photo_path.trim().is_empty() {
                    let p = PathBuf::from(self.photo_path.trim());
                    self.open_photo(p);
                }
                ui.separator();
                ui.label(egui::RichText::new(self.status_text()).strong());
            });
            for n in self.notes.iter().rev().take(2) {
                ui.label(
                    egui::RichText::new(n)
                        .small()
                        .color(Color32::from_rgb(200, 120, 0)),
                );
            }
        });
        egui::Panel::right("score").min_size(360.0).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| self.panel.ui(ui));
        });
        egui::CentralPanel::default().show(ui, |ui| self.picture_ui(ui));
    }
}

/// Opens the window and runs until it is closed.
pub fn run_window(opts: WindowOptions) -> Result<(), String> {
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("suanfan live")
            .with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    eframe::run_native(
        "suanfan live",
        native,
        Box::new(move |cc| Ok(Box::new(LiveApp::new(&cc.egui_ctx, opts)))),
    )
    .map_err(|e| {
        format!("cannot open the window: {e} (is there a display? use --headless without one)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_rate_counts_the_last_two_seconds() {
        let t0 = Instant::now();
        let mut times: std::collections::VecDeque<Instant> = (0..=30)
            .map(|k| t0 + Duration::from_millis(100 * k))
            .collect();
        // 31 frames 0.1 s apart over 3 s: the last 2 s hold 21 of them, 10 a second.
        let r = rate(&mut times, t0 + Duration::from_secs(3));
        assert!((r - 10.0).abs() < 0.01, "{r}");
        assert_eq!(times.len(), 21);
        assert_eq!(rate(&mut std::collections::VecDeque::new(), t0), 0.0);
    }

    #[test]
    fn the_status_says_when_the_source_has_ended() {
        let mut app = LiveApp::new(&egui::Context::default(), WindowOptions::default());
        let frame = |status| Message::Frame {
            image: Arc::new(RgbImage::new(4, 4)),
            detections: Vec::new(),
            status,
        };
        let send = |m| app.outbox.send(m).unwrap();
        send(frame(Status::Searching { tiles: 32 }));
        app.drain();
        assert_eq!(app.status_text(), "Searching (32 tiles)");
        // The last frame and the end come together: the end is not hidden by the frame.
        let send = |m| app.outbox.send(m).unwrap();
        send(Message::Ended(
            "the source ended; 1 of its frames were read".into(),
        ));
        send(frame(Status::Searching { tiles: 32 }));
        app.drain();
        assert_eq!(app.status_text(), "Source ended (32 tiles)");
        assert!(app.notes.iter().any(|n| n.starts_with("the source ended")));
        let send = |m| app.outbox.send(m).unwrap();
        send(frame(Status::Locked { key: "k".into() }));
        app.drain();
        assert_eq!(app.status_text(), "Locked");
    }
}
