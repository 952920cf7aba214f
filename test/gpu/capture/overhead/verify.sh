#!/bin/bash
# The overhead issue's checks on the GPU host, in one go (paths relative to the repository root):
# (the costs are test/gpu/overhead.bench.ts's)
#   1. the same deterministic script captured in window mode and in full mode (for the unit test);
#   2. a leaking loop recorded in window mode: headroom check --no-leak still finds it.
# Needs HEADROOM_NODE, HEADROOM_CLI, HEADROOM_AGENT_DIR; writes to OUT (default /tmp/verify).
set -u
OUT=${OUT:-/tmp/verify}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
hr() { "$HEADROOM_NODE" "$HEADROOM_CLI" "$@"; }
mkdir -p "$OUT"
echo "== window vs full captures"
for mode in window full; do
  hr run --out "$OUT/cap-$mode" --record $mode -- python3 "$HERE/loop.py" --iters 10 > "$OUT/cap-$mode.out" 2> "$OUT/cap-$mode.err"
  grep -o '"requested_peak": [0-9]*' "$OUT/cap-$mode.out"
done
echo "== leak in window mode"
hr run --out "$OUT/leak" -- python3 "$ROOT/demo/workspace/train_leaky.py" > /dev/null 2>&1
run=$(ls -d "$OUT"/leak/*/ | head -1)
snap=$(ls "$run"snapshot-peak.pickle 2>/dev/null || ls "$run"snapshot-exit*.pickle | tail -1)
echo "snapshot: $(basename "$snap")"
hr check "$snap" --no-leak; echo "check exit $?"
grep -h window_ "$run"events.jsonl | cut -c1-200
