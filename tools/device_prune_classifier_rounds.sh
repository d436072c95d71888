#!/bin/bash
# Rounds for a narrower classifier (width 16: about half the shipped one's arithmetic, 11-12 ms
# for a frame's 21 crops 8-bit against 21-23 on a CPU without VNNI), started from the shipped
# classifier's strongest channels (train_classifier.py --prune-from) and kept near its readings
# (--distill), at the length session 69's CPU round could not afford; then each round trained
# once more with the rounding of 8-bit quantization (--qat, its own float reading kept). Side by
# side on one GPU; models tarred into $OUT. Run from the repository root on the device (the
# `device` tool), with the copy of the training data and suanfan's answers in .gpu/ (tools/README.md,
# "The GPU runs"); every round also runs on CPU, slowly (session 69: 7 epochs of 43,000 crops,
# 35 minutes on 2 cores, then 6 and 4 more: it read the unseen sets' seasons as 1s, even with
# 900 drawn crops of each flower and season; models/README.md, session 69). Stage 4 (--backs-only), quantize.py and the evaluations run after, on CPU.
set -u
export SUANFAN_SHARED_DATA=$PWD/.gpu/data PYTHONUNBUFFERED=1
nvidia-smi -L
cd tools
common="--width 16 --per-class 600 --bonus-per-class 1200 --real-repeats 15 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --pipeline-copies 4 --train-faces --margin-share 0.5 --scan-answers ../.gpu/answers --bin /nonexistent --workers 4 --threads 2"
ROUNDS=p TRAINER=train_classifier.py MODEL=cls.onnx
. ./device_rounds.sh
mkdir -p /tmp/p
# One round: its name, its float stage's flags; its --qat stage follows from its float model.
round() {
    name=$1
    shift
    run "$name" --prune-from ../models/tile_classifier.onnx --epochs 24 "$@" &&
        run "$name-qat" --init "/tmp/p/$name/cls.onnx" --epochs 3 --lr 1e-4 --qat --distill 0.9 --seed 7
}
round P1 --distill 0.7 --lr 2e-3 --seed 61 & pids=($!)
round P2 --distill 0.9 --lr 2e-3 --seed 62 & pids+=($!)
round P3 --distill 0.7 --distill-temperature 4 --lr 3e-3 --seed 63 & pids+=($!)
watch_rounds 30
grep -h "^epoch\|Error" /tmp/p/*.log | cut -c1-220
