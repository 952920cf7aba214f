#!/usr/bin/env bash
# The library-model workloads on a GPU host, each recorded twice: (a) plain, the script calling
# PyTorch's recorder itself as users do (PyTorch's own figures in X.truth.json); (b) by
# `headroom run` in its default mode. Beside every snapshot, X.classes.json (classes.py: the
# def/class enclosing each frame's line, from Python's parser); then the pickles gzip-compressed
# and everything packed into OUT/library.tar. Usage (repo root, node at /tmp/node, .carry/ made by
# scripts/gpu-carry.mjs; WORKLOAD... picks some, /tmp/lib keeps earlier ones for the tar):
#   bash test/gpu/capture/library/capture.sh OUT [WORKLOAD...]
set -uo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
shift
ROOT=$PWD
HERE=$ROOT/test/gpu/capture/library
LIB=${LIB:-/tmp/lib}
NODE=${NODE:-/tmp/node}
export HEADROOM_AGENT_DIR=$ROOT/extension/agent PYTHONUNBUFFERED=1
WORKLOADS=${*:-hf_decoder hf_t5 timm_vit tv_detection lightning_blocks unet}
MODES=${MODES:-plain run}  # MODES=run re-records only the headroom run captures
mkdir -p $LIB/plain $LIB/run $LIB/logs
cd "$HERE"

. "$HERE/steps.sh"

for w in $WORKLOADS; do
  if [[ " $MODES " == *" plain "* ]]; then
    rm -rf $LIB/plain/$w.*
    plain $w $LIB/plain/$w.pickle python $w.py
  fi
  if [[ " $MODES " == *" run "* ]]; then
    rm -rf $LIB/run/$w
    step "$w headroom run" $LIB/logs/$w.run.log "$NODE" "$ROOT/.carry/cli.js" run --out $LIB/run/$w -- python $w.py
  fi
done

pack "$OUT" library
ls -la "$OUT"
