#!/bin/bash
# Five finder rounds (blur and noise, session 36) from the shipped finder, side by side on one GPU; models tarred into $OUT.
# Run from the repository root on the device (the `device` tool), with the copy of the training
# data in .gpu/ (tools/README.md, "The GPU runs"); every round also runs on CPU, slowly.
set -u
export SUANFAN_SHARED_DATA=$PWD/.gpu/data SUANFAN_BACKDROPS=$PWD/.gpu/backdrops PYTHONUNBUFFERED=1
nvidia-smi -L; nproc; python3 -c "import torch, onnx; print(torch.__version__, onnx.__version__, torch.cuda.is_available())"
cd tools
common="--init ../models/tile_finder.onnx --scenes 16000 --epochs 6 --lr 5e-4 --batch 16 --real 0.55 --closeup 0.25 --seat 0.3 --negative 0.1 --picture-tables 0.4 --workers 4 --threads 2 --export-each-epoch"
ROUNDS=m TRAINER=train_detector.py MODEL=tile_finder.onnx
. ./device_rounds.sh
mkdir -p /tmp/m
run B1 --blur-max 2.5 --blur-share 0.4 --seed 61 & pids=($!)
run B2 --blur-max 2.5 --blur-share 0.4 --noise-share 0.25 --seed 62 & pids+=($!)
run B3 --blur-max 3.5 --blur-share 0.5 --noise-share 0.25 --seed 63 & pids+=($!)
run B4 --seed 64 & pids+=($!)
run B5 --blur-max 2.5 --blur-share 0.4 --noise-share 0.25 --seat-turned 0.3 --seed 65 & pids+=($!)
watch_rounds 30
tail -n 3 /tmp/m/*.log
