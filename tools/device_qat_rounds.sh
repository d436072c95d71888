#!/bin/bash
# Four quantization-aware finder rounds (train_detector.py --qat, tools/qat.py; session 41) from
# the shipped finder on stage 2d's recipe, side by side on one GPU; models tarred into $OUT.
# Run from the repository root on the device (the `device` tool), with the copy of the training
# data in .gpu/ (tools/README.md, "The GPU runs"); every round also runs on CPU, slowly. $EXTRA adds
# flags to every round (the next try, session 42: EXTRA="--distill 0.97", train_detector.py).
set -u
export SUANFAN_SHARED_DATA=$PWD/.gpu/data SUANFAN_BACKDROPS=$PWD/.gpu/backdrops PYTHONUNBUFFERED=1
nvidia-smi -L; nproc; python3 -c "import torch, onnx; print(torch.__version__, onnx.__version__, torch.cuda.is_available())"
cd tools
common="--init ../models/tile_finder.onnx --scenes ${SCENES:-12000} --batch 16 --real 0.55 --negative 0.1 --closeup 0.25 --seat 0.3 --picture-tables 0.4 --workers 4 --threads 2 --export-each-epoch --qat ${EXTRA:-}"
ROUNDS=q TRAINER=train_detector.py MODEL=tile_finder.onnx
. ./device_rounds.sh
mkdir -p /tmp/q
run Q1 --lr 1e-4 --epochs 3 --seed 81 & pids=($!)
run Q2 --lr 3e-4 --epochs 3 --seed 82 & pids+=($!)
run Q3 --lr 1e-4 --epochs 4 --seed 83 & pids+=($!)
run Q4 --lr 5e-5 --epochs 3 --seed 84 & pids+=($!)
watch_rounds 30
tail -n 3 /tmp/q/*.log
