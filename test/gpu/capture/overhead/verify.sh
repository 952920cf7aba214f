#!/bin/bash
# The overhead issue's checks on the GPU host, in one go (paths relative to the repository root):
# (the costs are test/gpu/overhead.bench.ts's)
#   1. the same deterministic script captured in window mode and in full mode (for the unit test);
#   2. leaking loops recorded in window mode: headroom check --no-leak still finds them.
# Needs HEADROOM_NODE, HEADROOM_CLI, HEADROOM_AGENT_DIR; writes to OUT (default /tmp/verify).
set -u
OUT=${OUT:-/tmp/verify}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
hr() { "$HEADROOM_NODE" "$HEADROOM_CLI" "$@"; }
mkdir -p "$OUT"
echo "== window vs full captures"
[ -n "${SKIP_CAPTURES:-}" ] || for mode in window full; do
  hr run --out "$OUT/cap-$mode" --record $mode -- python3 "$HERE/loop.py" --iters 10 > "$OUT/cap-$mode.out" 2> "$OUT/cap-$mode.err"
  grep -o '"requested_peak": [0-9]*' "$OUT/cap-$mode.out"
done
echo "== leaks in window mode (the leak-detection issue's loops, and the demo)"
for case in leak_append total_loss_train total_loss_eval clean_train demo; do
  if [ $case = demo ]; then cmd=("$ROOT/demo/workspace/train_leaky.py"); else cmd=("$HERE/leak_loops.py" $case); fi
  hr run --out "$OUT/leak-$case" -- python3 "${cmd[@]}" > /dev/null 2>&1
  run=$(ls -d "$OUT"/leak-$case/*/ | head -1)
  # The snapshot of the last window: the exit one when a window was open at exit, else the last written.
  snap=$(grep -h '"event":"snapshot"' "$run"events.jsonl | grep '"trace":true' | tail -1 | sed 's/.*"path":"\([^"]*\)".*/\1/')
  echo "$case: windows: $(grep -h window_open "$run"events.jsonl | grep -o '"reason":"[^"]*"' | tr '\n' ' ') snapshot $(basename "$snap")"
  hr check "$snap" --no-leak | cut -c1-300; echo "check exit ${PIPESTATUS[0]}"
done
