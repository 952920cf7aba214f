#!/usr/bin/env bash
# The held-out library models (heldout.py), plain recordings only, packed as capture.sh packs its
# own into OUT/heldout.tar. Not to be looked at while tuning the analyzer. Usage (repo root):
#   bash test/gpu/capture/library/heldout.sh OUT [MODEL...]
set -uo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
shift
HERE=$PWD/test/gpu/capture/library
LIB=${LIB:-/tmp/lib-heldout}
export PYTHONUNBUFFERED=1
MODELS=${*:-bert convnext maskrcnn llama}
mkdir -p $LIB/plain $LIB/logs
cd "$HERE"

. "$HERE/steps.sh"

for m in $MODELS; do
  rm -f $LIB/plain/$m.*
  plain $m $LIB/plain/$m.pickle python heldout.py --model $m
done

pack "$OUT" heldout
ls -la "$OUT"
