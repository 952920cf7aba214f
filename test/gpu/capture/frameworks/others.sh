#!/usr/bin/env bash
# Framework runs beyond our own scripts, with `headroom run --modules on`, then the memory by module
# at the peak. Usage (repo root, node at /tmp/node): bash test/gpu/capture/frameworks/others.sh
set -uo pipefail
ROOT=$PWD
export HEADROOM_AGENT_DIR=$ROOT/extension/agent PYTHONUNBUFFERED=1
cd "$ROOT/test/gpu/capture/frameworks"
for w in torchvision_resnet accelerate_gpt2; do
  /tmp/node "$ROOT/.carry/cli.js" run --modules on --out /tmp/hr-others/$w -- python $w.py > /tmp/hr-others/$w.log 2>&1
  echo "== $w: exit $?"
  grep -iE "warning|error" /tmp/hr-others/$w.log | head -5
  snap=$(ls /tmp/hr-others/$w/*/snapshot-peak.pickle 2>/dev/null || ls /tmp/hr-others/$w/*/snapshot-exit-*.pickle | head -1)
  /tmp/node "$ROOT/.carry/cli.js" analyze "$snap" --by module --top 14 | sed -n '/^Live at the peak/,/^$/p;/Memory by module/,$p'
done
