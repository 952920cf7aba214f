# Shared by capture.sh and heldout.sh (sourced): one command with a time bound, its log, and a line
# with its exit status and time (the log's tail when it failed).
since() { python3 -c "import time; print(round(time.time() - $1, 1))"; }

step() {
  local label=$1 log=$2 start rc
  shift 2
  start=$(date +%s.%N)
  timeout 150 "$@" > "$log" 2>&1
  rc=$?
  echo "$label: exit $rc in $(since "$start") s"
  [ $rc -eq 0 ] || tail -8 "$log" | sed 's/^/    /'
  return $rc
}
