#!/usr/bin/env bash
# Issue 40 on a real capture, on the GPU host: records a long training run (big_trace.py, at least
# HEADROOM_BIG_EVENTS trace events), then times load + index there, interleaved: this reader
# (.carry/load.child.js), the previous one (.carry/load.base.js, bench/baseline.ts at 0bd93e2) and
# CPython's pickle.load (bench/cpython_load.py). One JSON line per run on stdout.
#   node scripts/gpu-carry.mjs; node --import tsx -e "import('./bench/baseline.ts').then(m => m.bundleChild(process.cwd(), 'load.child.ts', '.carry/load.base.js', '0bd93e2'))"
#   (device, carry .carry) bash test/gpu/capture/load_real.sh OUT_DIR [RUNS]
set -euo pipefail
out=$1
runs=${2:-3}
events=${HEADROOM_BIG_EVENTS:-3000000}
root=$(cd "$(dirname "$0")/../../.." && pwd)
node=${HEADROOM_NODE:-/tmp/node}
[ -x "$node" ] || { xz -dc "$root/.carry/node.xz" > "$node"; chmod +x "$node"; }
file=$out/big_trace_$events.pickle
if [ ! -f "$file" ]; then
  start=$(date +%s)
  (cd "$root/test/gpu/capture" && HEADROOM_BIG_EVENTS=$events python3 big_trace.py "$out") >&2
  echo "{\"capture_s\": $(( $(date +%s) - start )), \"bytes\": $(stat -c %s "$file")}"
fi
for i in $(seq "$runs"); do
  echo "{\"run\": $i, \"reader\": \"headroom\", \"r\": $("$node" "$root/.carry/load.child.js" "$file")}"
  echo "{\"run\": $i, \"reader\": \"previous\", \"r\": $("$node" "$root/.carry/load.base.js" "$file")}"
  echo "{\"run\": $i, \"reader\": \"cpython\", \"r\": $(python3 "$root/bench/cpython_load.py" "$file")}"
done
