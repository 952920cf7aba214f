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

# A plain recording (the script records itself); PyTorch's default context='all' breaks backward
# through non-reentrant checkpointing on torch 2.11 (docs/testing.md): when it fails, once more with
# context='alloc' (the truth file's "record" says which). Usage: plain NAME OUT.pickle CMD...
plain() {
  local name=$1 out=$2
  shift 2
  step "$name plain" $LIB/logs/$name.plain.log "$@" --plain "$out" ||
    step "$name plain (context=alloc)" $LIB/logs/$name.plain-alloc.log "$@" --plain "$out" --context alloc
}

# Beside every snapshot under $LIB its classes (classes.py), then the pickles gzip-compressed and
# packed into OUT: one tar when it fits what comes back from the host (at most 8 files of 16 MB),
# else one per workload. Usage: pack OUT NAME
pack() {
  local out=$1 name=$2 snaps log w
  mapfile -t snaps < <(find $LIB -name '*.pickle' | sort)
  [ ${#snaps[@]} -gt 0 ] && python3 "$HERE/classes.py" "${snaps[@]}"
  for f in "${snaps[@]}"; do gzip -9f "$f"; done
  (cd $LIB && find . -type f | sort | xargs ls -la)
  if [ "$(du -sb $LIB | cut -f1)" -lt 15000000 ]; then
    tar cf "$out/$name.tar" -C $LIB .
  else
    for log in $LIB/logs/*.plain.log; do
      w=$(basename "$log" .plain.log)
      (cd $LIB && tar cf "$out/$name-$w.tar" $(ls -d plain/$w.* run/$w logs/$w.* 2>/dev/null))
    done
  fi
}
