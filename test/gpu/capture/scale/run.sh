#!/usr/bin/env bash
# The batch / sequence / checkpointing captures on the GPU host: every workload at its base batch
# (the recording the predictions read), at ½×, 2× and 4× (the reruns they are checked against);
# two at other sequence lengths, two with activation checkpointing. Eight processes side by side
# (each its own allocator: the figures are per process). Pickles are kept where a prediction reads
# them (the base run; 2× and 2× sequence for the two-run fit); the rest keep their .json.
# Usage: bash run.sh OUT   (OUT/tuned/, OUT/heldout/: the held-out set apart; PACK=1 also tars them)
set -uo pipefail
out=$(mkdir -p "${1:?usage: run.sh OUT}" && cd "$1" && pwd)
cd "$(dirname "$0")"
mkdir -p "$out/tuned" "$out/heldout"
jobs=()
batches() { # SET NAME BASE
  local set=$1 w=$2 b=$3
  for x in $b $((b / 2)) $((b * 2)) $((b * 4)); do jobs+=("$set $w --batch $x"); done
}
batches tuned gpt 16; batches tuned t5 16; batches tuned vit 32; batches tuned resnet 32
batches tuned detection 4; batches tuned lightning 16
jobs+=("tuned gpt --batch 16 --seq 128" "tuned gpt --batch 16 --seq 512" "tuned t5 --batch 16 --seq 64" "tuned t5 --batch 16 --seq 256")
jobs+=("tuned gpt --batch 16 --ckpt" "tuned vit --batch 32 --ckpt")
batches heldout llama 8; batches heldout bert 16; batches heldout convnext 32; batches heldout mobilenet 32
batches heldout hf_trainer 8
jobs+=("heldout llama --batch 8 --seq 128" "heldout llama --batch 8 --seq 512")
printf '%s\n' "${jobs[@]}" | xargs -P 8 -L 1 bash -c 'set=$0; w=$1; shift; timeout 300 python3 workloads.py "$w" "'"$out"'/$set" "$@" > "'"$out"'/$set/$w-$(echo "$@" | tr -d " -").log" 2>&1 || echo "FAILED: $set $w $*"'
for set in tuned heldout; do
  # Base runs, 2× runs and the runs at other sequence lengths keep their pickle (the base batches below
  # are scale.gpu.test.ts's BASES); the rest keep their .json.
  for f in "$out/$set"/*.pickle; do
    keep=$(python3 - "$f" <<'EOF'
import json, sys
f = sys.argv[1]
j = json.load(open(f[:-7] + ".json"))
base = {"gpt": 16, "t5": 16, "vit": 32, "resnet": 32, "detection": 4, "lightning": 16, "llama": 8, "bert": 16, "convnext": 32, "mobilenet": 32, "hf_trainer": 8}[j["workload"]]
print(int(j["batch"] in (base, 2 * base) and not j["ckpt"]))
EOF
)
    [ "$keep" = 1 ] && gzip -9f "$f" || rm -f "$f"
  done
  # PACK=1: what comes back from the host is at most 16 MB a file: split tars (cat them back together).
  if [ -n "${PACK:-}" ]; then tar cf - -C "$out" "$set" | split -b 15M - "$out/$set.tar."; fi
done
ls -la "$out"
