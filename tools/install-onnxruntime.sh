#!/usr/bin/env bash
# Puts libonnxruntime.so.1.31.1 (from the PyPI wheel onnxruntime==1.31.1) where suanfan looks
# for it: ~/.local/share/suanfan (or the folder given as $1). Needs python3 with pip and unzip
# (or python3's zipfile). Nothing else is installed.
set -euo pipefail
DEST="${1:-$HOME/.local/share/suanfan}"
LIB=libonnxruntime.so.1.31.1
if [ -f "$DEST/$LIB" ]; then
    echo "$DEST/$LIB is already there"
    exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: onnxruntime==1.31.1 -d "$TMP"
WHEEL="$(ls "$TMP"/onnxruntime-1.31.1-*.whl | head -1)"
mkdir -p "$DEST"
python3 - "$WHEEL" "$DEST" "$LIB" <<'PY'
import sys, zipfile, shutil, os
wheel, dest, lib = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("capi/" + lib))
    with z.open(name) as src, open(os.path.join(dest, lib), "wb") as out:
        shutil.copyfileobj(src, out)
PY
echo "installed $DEST/$LIB"
