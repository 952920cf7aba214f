#!/usr/bin/env bash
# Records real workloads with C++ stacks (headroom run --stacks all --record full) and measures the
# library-workspace rule against the C++ frames (workspacesEval.ts), one JSON line per run into
# OUT/workspaces.jsonl. Two sets, each measured once, in order (docs/kinds.md): set 1 the framework
# scripts, set 2 the library models and accelerate (after the rule's one change since set 1).
# Usage (repo root on the GPU host, node at /tmp/node, .carry packed):
#   bash test/gpu/capture/kinds/workspaces.sh OUT 1|2
set -uo pipefail
OUT=$1
SET=$2
ROOT=$PWD
export HEADROOM_AGENT_DIR=$ROOT/extension/agent PYTHONUNBUFFERED=1
R=/tmp/hr-ws$SET
mkdir -p $R
if [ "$SET" = 1 ]; then
  W=("frameworks/hf_trainer.py /tmp/hf_out" "frameworks/lightning_mlp.py" "frameworks/nanogpt.py --steps 3" "frameworks/nanogpt.py --steps 3 --compile" "frameworks/torchvision_resnet.py")
else
  W=("frameworks/accelerate_gpt2.py" "library/timm_vit.py" "library/hf_t5.py" "library/tv_detection.py" "library/unet.py" "library/hf_decoder.py")
fi
for w in "${W[@]}"; do
  script=${w%% *}
  dir=$ROOT/test/gpu/capture/$(dirname "$script")
  name=$(basename "$script" .py)$(echo "$w" | grep -q -- --compile && echo _compiled)
  start=$(date +%s)
  (cd "$dir" && /tmp/node "$ROOT/.carry/cli.js" run --stacks all --record full --out $R/$name -- python ${w#*/} > $R/$name.log 2>&1)
  echo "$name: exit $? in $(( $(date +%s) - start )) s"
  /tmp/node "$ROOT/.carry/workspacesEval.js" $R/$name | tee -a "$OUT/workspaces.jsonl" | cut -c1-600
done
