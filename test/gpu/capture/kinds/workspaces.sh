#!/usr/bin/env bash
# Records real framework workloads with C++ stacks (headroom run --stacks all --record full) and
# measures the library-workspace rule against the C++ frames (workspacesEval.ts). Usage (repo root
# on the GPU host, node unpacked at /tmp/node, .carry packed): bash test/gpu/capture/kinds/workspaces.sh OUT
set -uo pipefail
OUT=$1
ROOT=$PWD
export HEADROOM_AGENT_DIR=$ROOT/extension/agent PYTHONUNBUFFERED=1
R=/tmp/hr-ws
mkdir -p $R
cd "$ROOT/test/gpu/capture/frameworks"
for w in "hf_trainer:hf_trainer.py /tmp/hf_out" "lightning:lightning_mlp.py" "nanogpt_eager:nanogpt.py --steps 3" "nanogpt_compiled:nanogpt.py --steps 3 --compile" "resnet:torchvision_resnet.py"; do
  name=${w%%:*}; cmd=${w#*:}
  start=$(date +%s)
  /tmp/node "$ROOT/.carry/cli.js" run --stacks all --record full --out $R/$name -- python $cmd > $R/$name.log 2>&1
  echo "$name: exit $? in $(( $(date +%s) - start )) s"
  /tmp/node "$ROOT/.carry/workspacesEval.js" $R/$name | tee -a "$OUT/workspaces.jsonl"
done
