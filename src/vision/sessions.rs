//! The models' ONNX Runtime sessions: loaded from the embedded bytes or a file the user gave;
//! the classifiers checked for the classes suanfan reads. The embedded classifier for soft
//! photos is loaded when the first soft photo comes: most photos are sharp, and loading it
//! cost a one-photo `scan` about 6 ms (a 12 MP photo 4–5 ms sooner by the clock, session 60).

use std::path::PathBuf;

use ndarray::Array4;
use ort::environment::Environment;
use ort::session::Session;
use ort::value::TensorRef;

use super::{
    CLASS_COUNT, CROP_H, CROP_W, Recognizer, SOFT_CLASSIFIER, VisionError, WITH_BACK, WITH_NONE,
    model_err, no_output, output,
};

/// The finder's outputs suanfan reads (`FinderMaps`); its `rbox` may be missing (a finder
/// without it gives upright boxes).
const FINDER_OUTPUTS: [&str; 2] = ["heat", "box"];

/// The finder's face turn: the four scores before their softmax (`ORIENT_LOGITS`, the
/// shipped finder since session 71: the softmax is taken at the few cells where a tile is
/// found, not over the whole map) or the four probabilities (`ORIENT`, earlier finders).
pub(super) const ORIENT_LOGITS: &str = "orient_logits";
pub(super) const ORIENT: &str = "orient";

/// Whether the finder gives the outputs suanfan reads, checked by their names when it is
/// loaded; their shapes are checked on every look (`FinderMaps::check`).
pub(super) fn check_finder(finder: &Session) -> Result<(), VisionError> {
    let has = |name: &str| finder.outputs().iter().any(|o| o.name() == name);
    if let Some(name) = FINDER_OUTPUTS.iter().find(|&&name| !has(name)) {
        return Err(no_output("tile finder", name));
    }
    if !has(ORIENT_LOGITS) && !has(ORIENT) {
        return Err(no_output(
            "tile finder",
            &format!("{ORIENT_LOGITS}` or `{ORIENT}"),
        ));
    }
    Ok(())
}

/// The session of the model in `path`, or of the embedded `bytes` when none is given; `what`
/// names it in messages. Its `threads` do not spin between runs: the sessions run one after
/// the other, and threads of one left spinning would take the cores from the other
/// (measured: classifier 22 → 10 ms, finder 16 → 6 ms on 2 cores).
pub(super) fn load(
    env: &Environment,
    bytes: &[u8],
    path: &Option<PathBuf>,
    what: &str,
    threads: usize,
) -> Result<Session, VisionError> {
    let owned;
    let data = match path {
        Some(p) => {
            owned = std::fs::read(p)
                .map_err(|e| VisionError::Model(format!("{}: {e}", p.display())))?;
            &owned[..]
        }
        None => bytes,
    };
    let name = path.as_ref().map_or_else(
        || format!("the embedded {what}"),
        |p| p.display().to_string(),
    );
    Session::builder(env)
        .map_err(model_err)?
        .with_intra_threads(threads)
        .map_err(|e| model_err(e.to_string()))?
        .with_intra_op_spinning(false)
        .map_err(|e| model_err(e.to_string()))?
        .commit_from_memory(data)
        .map_err(|e| VisionError::Model(format!("{what} ({name}) cannot be loaded: {e}")))
}

impl Recognizer {
    /// The classifier for soft photos or the other one, with its name for messages; the
    /// embedded classifier for soft photos is loaded the first time it is asked for.
    pub(super) fn classifier_for(
        &mut self,
        soft: bool,
    ) -> Result<(&mut Session, &'static str), VisionError> {
        if !soft {
            return Ok((&mut self.classifier, "tile classifier"));
        }
        if self.soft_classifier.is_none() {
            self.load_soft_classifier()?;
        }
        let session = self
            .soft_classifier
            .as_mut()
            .ok_or_else(|| model_err("the tile classifier for soft photos is not loaded"))?;
        Ok((session, "tile classifier for soft photos"))
    }

    /// Loads the classifier for soft photos and checks that it reads the classes the other
    /// one reads.
    pub(super) fn load_soft_classifier(&mut self) -> Result<(), VisionError> {
        let session = load(
            &self.env,
            SOFT_CLASSIFIER,
            &self.cfg.soft_classifier_model,
            "tile classifier for soft photos",
            self.cfg.threads.max(1),
        )?;
        self.soft_classifier = Some(session);
        let soft = self.classifier_width(true);
        if soft.as_ref().map_or(true, |&n| n != self.classes) {
            // Not kept: the next soft photo tries again, and says the same.
            self.soft_classifier = None;
        }
        let soft = soft?;
        if soft != self.classes {
            return Err(VisionError::Model(format!(
                "the tile classifier for soft photos has {soft} outputs and the tile classifier \
                 {}: both must read the same classes",
                self.classes
            )));
        }
        Ok(())
    }

    /// The classifier's output width, checked once: 42 faces, 43 with "not a tile", 44 with
    /// "a tile face down" as well.
    pub(super) fn classifier_width(&mut self, soft: bool) -> Result<usize, VisionError> {
        let crop = Array4::<f32>::zeros((1, 3, CROP_H, CROP_W));
        let (classifier, what) = self.classifier_for(soft)?;
        let outputs = classifier
            .run(ort::inputs![
                TensorRef::from_array_view(&crop).map_err(model_err)?
            ])
            .map_err(|e| {
                VisionError::Model(format!(
                    "the {what} cannot read a 1×3×{CROP_H}×{CROP_W} crop: {e}"
                ))
            })?;
        let probs = output(&outputs, what, "probs")?;
        match probs.shape() {
            [1, n] if (CLASS_COUNT..=WITH_BACK).contains(n) => Ok(*n),
            other => Err(VisionError::Model(format!(
                "the {what}'s `probs` has shape {other:?}; suanfan needs [n, {CLASS_COUNT}] \
                 (the 42 faces), [n, {WITH_NONE}] (and \"not a tile\") or [n, {WITH_BACK}] (and \
                 \"a tile face down\")"
            ))),
        }
    }
}
