#!/bin/bash
# Session 46: classifier rounds that see more flowers and seasons (faces.bonus_line_art, the
# outline style most real sets print; --bonus-per-class drawn crops of each, --bonus-copies cuts
# of each in the rf photos), side by side on one GPU: three quantization-aware rounds from the
# shipped classifier kept near its readings (stage 5's recipe), one round of the classifier for
# soft photos (its blur and noise); then each one's back output fitted again (stage 4). Models
# tarred into $OUT. Run from the repository root on the device (the `device` tool) with the
# copy of the training data and suanfan's answers in .gpu/ and the face bank
# (tools/.cache/faces) carried (tools/README.md, "The GPU runs"); every round also runs on CPU,
# slowly.
set -u
export SUANFAN_SHARED_DATA=$PWD/.gpu/data PYTHONUNBUFFERED=1
nvidia-smi -L
cd tools
common="--per-class 300 --real-repeats 15 --rf-copies 3 --none-drawn 2500 --none-per-photo 16 --pipeline-copies 4 --train-faces --margin-share 0.5 --scan-answers ../.gpu/answers --bin /nonexistent --workers 4 --threads 2 --bonus-copies 12"
qat="--init ../models/tile_classifier.onnx --qat --epochs 2"
ROUNDS=f TRAINER=train_classifier.py MODEL=cls.onnx
. ./device_rounds.sh
mkdir -p /tmp/f
run F1 $qat --distill 0.9 --lr 1e-4 --bonus-per-class 900 --seed 61 & pids=($!)
run F2 $qat --distill 0.5 --lr 3e-4 --bonus-per-class 900 --seed 62 & pids+=($!)
run F3 $qat --distill 0.9 --lr 3e-4 --bonus-per-class 1200 --seed 63 & pids+=($!)
run S1 --init ../models/tile_classifier_soft.onnx --epochs 3 --lr 3e-4 --blur-share 0.35 --blur-max 3.0 --noise-share 0.2 --bonus-per-class 900 --seed 64 & pids+=($!)
watch_rounds 30
# Stage 4 for each: the back output fitted on its own features, every other output unchanged.
# Session 46 started the four side by side (each with torch's default threads) and they had not
# ended 340 s later; they were run here on 2 cores instead (89 s each). So: one at a time.
for r in F1 F2 F3 S1; do
    python3 train_classifier.py --backs-only --init "/tmp/f/$r/cls.onnx" --backs 12 --backs-drawn 2000 --per-class 60 --none-drawn 2500 --epochs 3000 --lr 0.02 --margin-share 0.5 --workers 8 --threads 8 --out "/tmp/f/$r/final.onnx" > "/tmp/f/$r.backs.log" 2>&1
    pack
done
grep -h "^epoch\|real validation\|Error" /tmp/f/*.log | cut -c1-260
tail -n 3 /tmp/f/*.backs.log
