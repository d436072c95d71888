#!/usr/bin/env bash
# One command: render the face bank, train both models, export them to models/, evaluate.
# CPU, 2 cores: about 50 minutes (faces 10 s, classifier 20-30 min, finder ~15 min, eval 1 min).
set -euo pipefail
cd "$(dirname "$0")"
python faces.py
python train_classifier.py
python train_detector.py
python make_samples.py
python eval.py
# End to end on hands of real tiles (needs the Rust toolchain to build suanfan with the new models).
if command -v cargo >/dev/null; then
    (cd .. && cargo build --release --quiet) && python real_hands.py
fi
