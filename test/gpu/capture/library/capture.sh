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
    # PyTorch's default context='all' breaks backward through non-reentrant checkpointing on torch
    # 2.11 (docs/testing.md): when the plain run fails, once more with context='alloc' (its truth
    # file's "record" says which).
    step "$w plain" $LIB/logs/$w.plain.log python $w.py --plain $LIB/plain/$w.pickle ||
      step "$w plain (context=alloc)" $LIB/logs/$w.plain-alloc.log python $w.py --plain $LIB/plain/$w.pickle --context alloc
  fi
  if [[ " $MODES " == *" run "* ]]; then
    rm -rf $LIB/run/$w
    step "$w headroom run" $LIB/logs/$w.run.log "$NODE" "$ROOT/.carry/cli.js" run --out $LIB/run/$w -- python $w.py
  fi
done

mapfile -t snaps < <(find $LIB -name '*.pickle' | sort)
[ ${#snaps[@]} -gt 0 ] && python3 "$HERE/classes.py" "${snaps[@]}"
for f in "${snaps[@]}"; do gzip -9f "$f"; done
(cd $LIB && find . -type f | sort | xargs ls -la)
# What comes back from the host is at most 8 files of 16 MB: one tar when it fits, else one per workload.
if [ "$(du -sb $LIB | cut -f1)" -lt 15000000 ]; then
  tar cf "$OUT/library.tar" -C $LIB .
else
  for log in $LIB/logs/*.plain.log; do
    w=$(basename "$log" .plain.log)
    (cd $LIB && tar cf "$OUT/library-$w.tar" $(ls -d plain/$w.* run/$w logs/$w.* 2>/dev/null))
  done
fi
ls -la "$OUT"
