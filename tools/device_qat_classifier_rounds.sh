#!/bin/bash
# Three quantization-aware classifier rounds (train_classifier.py --qat, tools/qat.py) kept near
# the shipped classifier's readings (--distill), stage 3b's recipe, side by side on one GPU
# (session 41); models tarred into $OUT. Run from the repository root on the device (the
# `device` tool), with the copy of the training data and suanfan's answers in .gpu/
# (tools/README.md, "The GPU runs"); every round also runs on CPU, slowly.
set -u
export SUANFAN_SHARED_DATA=$PWD/.gpu/data PYTHONUNBUFFERED=1
nvidia-smi -L
cd tools
common="--init ../models/tile_classifier.onnx --per-class 300 --real-repeats 15 --epochs 2 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --pipeline-copies 4 --train-faces --margin-share 0.5 --qat --scan-answers ../.gpu/answers --bin /nonexistent --workers 4 --threads 2"
ROUNDS=d TRAINER=train_classifier.py MODEL=cls.onnx
. ./device_rounds.sh
mkdir -p /tmp/d
run D1 --distill 0.8 --lr 3e-4 --seed 51 & pids=($!)
run D2 --distill 0.95 --lr 3e-4 --seed 52 & pids+=($!)
run D3 --distill 0.9 --lr 1e-4 --seed 53 & pids+=($!)
watch_rounds 20
grep -h "^epoch\|Error" /tmp/d/*.log | cut -c1-220
