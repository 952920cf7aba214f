#!/usr/bin/env bash
# The held-out what-if captures (heldout.py): real clients' training scripts, each recorded with the
# defaults, then under four other settings, then under a cap of 95 % of its own default reserved
# peak with the defaults, expandable segments and max_split_size_mb:64. Side by side, one series per
# workload. Usage: bash heldout.sh OUT
set -euo pipefail
out=${1:?usage: heldout.sh OUT}
mkdir -p "$out"
cd "$(dirname "$0")"
series() { # WORKLOAD
  local w=$1
  python3 heldout.py "$w" "$out"
  for conf in expandable_segments:True max_split_size_mb:64 roundup_power2_divisions:4 garbage_collection_threshold:0.6,max_split_size_mb:128; do
    PYTORCH_CUDA_ALLOC_CONF=$conf python3 heldout.py "$w" "$out"
  done
  local cap
  cap=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['reserved_peak'] * 0.95) >> 20)" "$out/$w-default.json")
  python3 heldout.py "$w" "$out" --cap-mib "$cap"
  for conf in expandable_segments:True max_split_size_mb:64; do PYTORCH_CUDA_ALLOC_CONF=$conf python3 heldout.py "$w" "$out" --cap-mib "$cap"; done
}
# The reverse, predicted before it ran: Lightning fits under 760 MiB with the defaults, not with expandable segments.
reverse() {
  python3 heldout.py lightning "$out" --cap-mib 760
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 heldout.py lightning "$out" --cap-mib 760
}
pids=()
reverse > "$out/lightning-reverse.log" 2>&1 & pids+=($!)
for w in hf_trainer nanogpt_compiled lightning timm_vit hf_t5; do series "$w" > "$out/$w.log" 2>&1 & pids+=($!); done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status = 0 ] || { tail -n 30 "$out"/*.log; exit 1; }
