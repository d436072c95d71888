#!/usr/bin/env bash
# One command: render the face bank, train both models, export them to models/, evaluate.
#
#   tools/train_all.sh           the recipe of the shipped models (tile finder: 20,000 scenes,
#                                16 epochs; classifier: 1,000 crops a class, 16 epochs).
#                                One H100: about 12 minutes of training. Two CPU cores: about 3 hours
#                                (estimated from the epoch times of the quick recipe).
#   tools/train_all.sh --quick   a smaller recipe that fits a CPU session (finder: 3,000 scenes,
#                                12 epochs; classifier: 500 crops a class, 12 epochs): about
#                                50 minutes on two CPU cores.
#
# A GPU is used when there is one. Both scripts generate their data on every CPU core.
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${1:-}" == "--quick" ]]; then
    finder=(--scenes 3000 --epochs 12)
    classifier=(--per-class 500 --epochs 12)
else
    finder=(--scenes 20000 --epochs 16 --batch 32 --lr 3e-3)
    classifier=(--per-class 1000 --epochs 16)
fi
python faces.py
python train_classifier.py "${classifier[@]}"
python train_detector.py "${finder[@]}"
python make_samples.py
python eval.py
# End to end on hands of real tiles (needs the Rust toolchain to build suanfan with the new models).
if command -v cargo >/dev/null; then
    (cd .. && cargo build --release --quiet) && python real_hands.py
fi
