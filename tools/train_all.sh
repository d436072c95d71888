#!/usr/bin/env bash
# One command: render the face bank, train both models, export them to models/, evaluate.
#
# Stages. Stage 1 learns tiles from drawn scenes and crops (as the models before real
# photos were added); stage 2 starts from stage 1 and learns from real labelled phone photos
# (rf-chinese-mahjong), pictures with no tile and drawn distractors, and gives the classifier
# its "not a tile" class.
#
#   tools/train_all.sh             stage 1 (finder: 20,000 scenes, 16 epochs; classifier: 1,000
#                                  crops a class, 16 epochs; about 12 minutes on one H100,
#                                  about 3 hours on two CPU cores, estimated), then stage 2.
#   tools/train_all.sh --quick     a smaller stage 1 (3,000 scenes, 12 epochs; 500 crops a class,
#                                  12 epochs: about 50 minutes on two CPU cores), then stage 2.
#   tools/train_all.sh --finetune  stages 2 to 4 alone, from the models now in models/. The
#                                  shipped finder is stage 2 (without fit_loss) run on the models
#                                  of commit 19bfb09 (made by stage 1 on an H100; 44 minutes on
#                                  two CPU cores), then stage 2b (with it) on an H200. The
#                                  shipped classifier is that stage-2 classifier trained again on
#                                  corrected labels, then stage 3 and 3b (models/README.md): 19,
#                                  30, 25 and 13 minutes on two CPU cores; stage 3b again on the
#                                  stage-2b finder's cuts (16 minutes); then stage 4 (1 minute).
#                                  The shipped finder then ran stage 2c (seat view) and stage
#                                  2d (real pictures as tables) on an H100.
#
# Stage 3 trains the classifier once more on the rf faces cut where and as suanfan cuts them
# (the finder's turned outlines), so it needs the Rust toolchain to build suanfan with the
# stage-2 models; without cargo it is skipped. Stage 4 gives the classifier a 44th output, a
# tile face down, fitted on its own features (every other output unchanged) from the
# face-down tiles a person judged on the rf train photos (datasets/labels/rf-backs.csv).
#
# A GPU is used when there is one. Both scripts generate their data on every CPU core.
set -euo pipefail
cd "$(dirname "$0")"
stage1=yes
case "${1:-}" in
    --quick)
        finder=(--scenes 3000 --epochs 12)
        classifier=(--per-class 500 --epochs 12) ;;
    --finetune)
        stage1=no ;;
    *)
        finder=(--scenes 20000 --epochs 16 --batch 32 --lr 3e-3)
        classifier=(--per-class 1000 --epochs 16) ;;
esac
mkdir -p .cache
if [[ $stage1 == yes ]]; then
    python faces.py
    python train_classifier.py "${classifier[@]}" --rf-copies 0 --out .cache/stage1_classifier.onnx
    python train_detector.py "${finder[@]}" --real 0 --negative 0 --out .cache/stage1_finder.onnx
else
    cp ../models/tile_classifier.onnx .cache/stage1_classifier.onnx
    cp ../models/tile_finder.onnx .cache/stage1_finder.onnx
fi
# Stage 2: real photos, negatives, "not a tile".
python train_detector.py --init .cache/stage1_finder.onnx --scenes 9000 --epochs 5 --lr 1e-3 --batch 16 --real 0.55 --negative 0.1 --closeup 0
# Stage 2b: a gentler round with a quarter of the real-photo scenes drawn as close-ups (the
# turned faces learn the real tiles' shapes through fit_loss in both rounds; the face-down heat
# learns the backs judged on the rf train photos, datasets/labels/rf-backs.csv). 61 s on an H200.
python train_detector.py --init ../models/tile_finder.onnx --scenes 12000 --epochs 5 --lr 5e-4 --batch 16 --real 0.55 --negative 0.1 --closeup 0.25
# Stage 2c: once more from that, a third of the drawn scenes showing a hand from the seat
# (standing tiles seen from the front, melds lying low: scenes.seat_view). 123 s on an H100.
python train_detector.py --init ../models/tile_finder.onnx --scenes 16000 --epochs 6 --lr 5e-4 --batch 16 --real 0.55 --negative 0.1 --closeup 0.25 --seat 0.3
# Stage 2d: once more from that, 40% of the drawn scenes laid on a piece of a real picture
# (Debian's wallpapers and textures of the half we train on) instead of a drawn table. 358 s
# on an H100 beside four other rounds; seed 8 is the shipped round (models/README.md).
python train_detector.py --init ../models/tile_finder.onnx --scenes 16000 --epochs 6 --lr 5e-4 --batch 16 --real 0.55 --negative 0.1 --closeup 0.25 --seat 0.3 --picture-tables 0.4 --seed 8
python train_classifier.py --init .cache/stage1_classifier.onnx --per-class 300 --real-repeats 15 --epochs 5 --rf-copies 3 --none-drawn 2500 --lr 1e-3
if command -v cargo >/dev/null; then
    # Stage 3: the faces as suanfan cuts them (train_classifier.py --pipeline-copies).
    (cd .. && cargo build --release --quiet)
    python train_classifier.py --init ../models/tile_classifier.onnx --per-class 300 --real-repeats 15 --epochs 4 --rf-copies 3 --none-drawn 2500 --lr 1e-3 --pipeline-copies 4
    # Stage 3b: once more from that, with the faces of the augmented train photos whose
    # orientation is known (datasets/labels/rf-train-orientation.csv; mirrored ones flipped
    # back) cut as suanfan cuts them, and twice the crops that are no tile; half the faces cut
    # with the margin of suanfan's second reading (src/vision/mod.rs MARGIN). 935 s on 2 cores.
    python train_classifier.py --init ../models/tile_classifier.onnx --per-class 300 --real-repeats 15 --epochs 4 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --lr 1e-3 --pipeline-copies 4 --train-faces --margin-share 0.5
fi
# Stage 4: the back output (a 44th class) fitted on the classifier's own features, from the
# face-down tiles judged in datasets/labels/rf-backs.csv and drawn backs; the faces stay as
# they are. About a minute.
cp ../models/tile_classifier.onnx .cache/stage3_classifier.onnx
cp ../models/tile_classifier.json .cache/stage3_classifier.json
python train_classifier.py --backs-only --init .cache/stage3_classifier.onnx --backs 12 --backs-drawn 2000 --per-class 60 --none-drawn 2500 --epochs 3000 --lr 0.02 --margin-share 0.5
# The classifier for soft photos (src/vision/softness.rs): stage 3b's recipe once more from the
# stage-3 classifier, a third of each batch blurred (Gaussian sigma up to 3 pixels of the crop)
# and a fifth given sensor noise, then its own stage 4. The shipped one is session 36's round
# C2 (seed 12, from the shipped classifier, on an H100); about 16 minutes on 2 CPU cores.
if command -v cargo >/dev/null; then
    python train_classifier.py --init .cache/stage3_classifier.onnx --per-class 300 --real-repeats 15 --epochs 4 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --lr 1e-3 --pipeline-copies 4 --train-faces --margin-share 0.5 --blur-share 0.35 --blur-max 3.0 --noise-share 0.2 --seed 12 --out .cache/stage3_soft.onnx
    python train_classifier.py --backs-only --init .cache/stage3_soft.onnx --backs 12 --backs-drawn 2000 --per-class 60 --none-drawn 2500 --epochs 3000 --lr 0.02 --margin-share 0.5 --out ../models/tile_classifier_soft.onnx
fi
# Stage 5 (session 41): the shipped classifier is stage 4's trained once more with the rounding of
# 8-bit quantization (tools/qat.py), kept near its own readings (--distill 0.9), then its
# back output fitted again and the whole quantized to 8 bits (7-bit weights, the output layer
# float): a third of the float classifier's time. Its rounds ran on an H100 (198 s for three,
# tools/device_qat_classifier_rounds.sh; round D3 ships); about 25 minutes on 2 CPU cores.
if command -v cargo >/dev/null; then
    cp ../models/tile_classifier.onnx .cache/stage4_classifier.onnx
    python train_classifier.py --init .cache/stage4_classifier.onnx --per-class 300 --real-repeats 15 --epochs 2 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --lr 1e-4 --pipeline-copies 4 --train-faces --margin-share 0.5 --qat --distill 0.9 --seed 53 --out .cache/stage5_qat.onnx
    python train_classifier.py --backs-only --init .cache/stage5_qat.onnx --backs 12 --backs-drawn 2000 --per-class 60 --none-drawn 2500 --epochs 3000 --lr 0.02 --margin-share 0.5 --out .cache/tile_classifier.onnx
    python quantize.py --classifier-models .cache/tile_classifier.onnx --out-dir .cache
    cp .cache/tile_classifier.int8.onnx ../models/tile_classifier.onnx
    cp .cache/tile_classifier.json ../models/tile_classifier.json
fi
python rf_labels.py check-backs
python make_samples.py
python eval.py
# Whole real photos and hands of real tiles (needs the Rust toolchain to build suanfan with the new models).
if command -v cargo >/dev/null; then
    (cd .. && cargo build --release --quiet) && python eval_photos.py && python real_hands.py
fi
