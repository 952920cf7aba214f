#!/usr/bin/env bash
# Records the framework workloads with `headroom run` on a GPU host, as a user would, and packs
# each run folder (snapshots gzip-compressed, as the loader reads them) into OUT. Usage (repo root, node unpacked at /tmp/node):
#   bash test/gpu/capture/frameworks/capture.sh OUT
set -uo pipefail
OUT=$1
ROOT=$PWD
HERE=$ROOT/test/gpu/capture/frameworks
export HEADROOM_AGENT_DIR=$ROOT/extension/agent PYTHONUNBUFFERED=1
mkdir -p /tmp/hr-runs
cd "$HERE"
for w in "hf_trainer:hf_trainer.py /tmp/hf_out" "lightning:lightning_mlp.py" "nanogpt_eager:nanogpt.py --steps 4" "nanogpt_compiled:nanogpt.py --steps 4 --compile"; do
  name=${w%%:*}; cmd=${w#*:}
  start=$(date +%s.%N)
  /tmp/node "$ROOT/.carry/cli.js" run --modules on --out /tmp/hr-runs/$name -- python $cmd > /tmp/hr-runs/$name.log 2>&1
  echo "$name: exit $? in $(python3 -c "import time; print(round(time.time() - $start, 1))") s"
  tail -5 /tmp/hr-runs/$name.log
done
cd /tmp/hr-runs && ls -laR | head -80
for f in $(find /tmp/hr-runs -name '*.pickle'); do gzip -9 "$f"; done
tar cf "$OUT/runs.tar" -C /tmp/hr-runs . && ls -la "$OUT"
