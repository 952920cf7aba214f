#!/usr/bin/env bash
# The allocator what-if check on the GPU host: each workload recorded once with the default
# settings, then rerun under each other setting (a fresh process each: the setting is read at CUDA
# init). `headroom whatif` on the recording is then compared with the reruns' own peaks
# (test/unit/allocatorWhatif.test.ts reads OUT's JSON). Usage: bash run.sh OUT
set -euo pipefail
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
cd "$(dirname "$0")"
for w in transformer cnn detection two_streams; do
  python3 workloads.py "$w" "$out" --record
  for conf in expandable_segments:True max_split_size_mb:64 roundup_power2_divisions:4 garbage_collection_threshold:0.6,max_split_size_mb:128; do
    PYTORCH_CUDA_ALLOC_CONF=$conf python3 workloads.py "$w" "$out"
  done
done
ls -la "$out"
