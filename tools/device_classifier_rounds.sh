#!/bin/bash
# Five classifier rounds (stage 3b with blur and noise, session 36) from the shipped classifier,
# side by side on one GPU; suanfan's answers on the rf photos read from .gpu/answers.
# Run from the repository root on the device (the `device` tool), with the copy of the training
# data in .gpu/ (tools/README.md, "The GPU runs"); every round also runs on CPU, slowly.
set -u
export SUANFAN_SHARED_DATA=$PWD/.gpu/data SUANFAN_BACKDROPS=$PWD/.gpu/backdrops PYTHONUNBUFFERED=1
nvidia-smi -L; python3 -c "import torch; print(torch.__version__, torch.cuda.is_available())"
cd tools
common="--init ../models/tile_classifier.onnx --per-class 300 --real-repeats 15 --epochs 4 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --lr 1e-3 --pipeline-copies 4 --train-faces --margin-share 0.5 --scan-answers ../.gpu/answers --bin /nonexistent --workers 3 --threads 2"
ROUNDS=c TRAINER=train_classifier.py MODEL=cls_m3.onnx
. ./device_rounds.sh
mkdir -p /tmp/c
run C1 --blur-share 0.25 --blur-max 2.5 --noise-share 0.1 --seed 11 & pids=($!)
run C2 --blur-share 0.35 --blur-max 3.0 --noise-share 0.2 --seed 12 & pids+=($!)
run C3 --blur-share 0.5 --blur-max 3.5 --noise-share 0.3 --seed 13 & pids+=($!)
run C4 --seed 14 & pids+=($!)
run C5 --blur-share 0.35 --blur-max 2.0 --noise-share 0.2 --seed 15 & pids+=($!)
watch_rounds 20
grep -h "epoch 4\|Error\|error" /tmp/c/*.log | cut -c1-200
