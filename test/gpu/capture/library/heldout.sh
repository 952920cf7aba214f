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
  # As in capture.sh: context='all' may break non-reentrant checkpointing (llama); then 'alloc'.
  step "$m plain" $LIB/logs/$m.plain.log python heldout.py --model $m --plain $LIB/plain/$m.pickle ||
    step "$m plain (context=alloc)" $LIB/logs/$m.plain-alloc.log python heldout.py --model $m --plain $LIB/plain/$m.pickle --context alloc
done

mapfile -t snaps < <(find $LIB -name '*.pickle' | sort)
[ ${#snaps[@]} -gt 0 ] && python3 "$HERE/classes.py" "${snaps[@]}"
for f in "${snaps[@]}"; do gzip -9f "$f"; done
(cd $LIB && find . -type f | sort | xargs ls -la)
# What comes back from the host is at most 8 files of 16 MB: one tar when it fits, else one per model.
if [ "$(du -sb $LIB | cut -f1)" -lt 15000000 ]; then
  tar cf "$OUT/heldout.tar" -C $LIB .
else
  for log in $LIB/logs/*.plain.log; do
    w=$(basename "$log" .plain.log)
    (cd $LIB && tar cf "$OUT/heldout-$w.tar" $(ls -d plain/$w.* logs/$w.* 2>/dev/null))
  done
fi
ls -la "$OUT"
