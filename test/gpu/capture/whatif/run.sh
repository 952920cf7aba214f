#!/usr/bin/env bash
# The allocator what-if captures on the GPU host: every workload recorded under each setting (a
# fresh process each: the setting is read at CUDA init), once more with the defaults (how much the
# run itself varies), and three under a per-process cap (a memory fraction). The workloads run side
# by side, each its settings in turn. test/gpu/whatif.gpu.test.ts runs this, then checks the replay
# of every recording and the prediction, from the default recording, of every other one.
# Usage: bash run.sh OUT
set -euo pipefail
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
cd "$(dirname "$0")"
confs=(expandable_segments:True max_split_size_mb:64 roundup_power2_divisions:4 garbage_collection_threshold:0.6,max_split_size_mb:128)
series() { # WORKLOAD [CAP_MIB]
  local w=$1 cap=(${2:+--cap-mib $2})
  python3 workloads.py "$w" "$out" "${cap[@]}"
  for conf in "${confs[@]}"; do PYTORCH_CUDA_ALLOC_CONF=$conf python3 workloads.py "$w" "$out" "${cap[@]}"; done
  if [ -z "${2:-}" ]; then python3 workloads.py "$w" "$out" --tag again; fi
}
pids=()
for w in transformer cnn detection two_streams graphs frag; do series "$w" > "$out/$w.log" 2>&1 & pids+=($!); done
# Under a cap: frag_oom's pattern OOMs by fragmentation with the defaults; Faster R-CNN and the
# transformer fit with the defaults, and max_split_size_mb:64 needs more than they do; the CUDA
# graph workload fits under 380 MiB with the defaults, and expandable segments need more.
for spec in frag:1636 detection:4096 transformer:1088 graphs:380; do series "${spec%%:*}" "${spec##*:}" > "$out/${spec%%:*}-cap.log" 2>&1 & pids+=($!); done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ $status = 0 ] || { tail -n 20 "$out"/*.log; exit 1; }
