#!/usr/bin/env bash
# collective_worker under mpirun (Open MPI, as root in CI: --allow-run-as-root): 2 and 4 ranks
# all-reduce through distribute::init()'s MPI backend; a stalled rank makes rank 0 fail within
# DUET_COLLECTIVE_TIMEOUT_S, naming the collective, and mpirun ends the job.
set -uo pipefail
worker="$1"
mpirun_flags=(--oversubscribe --allow-run-as-root --mca btl self,tcp --mca btl_tcp_if_include lo
              --mca oob_tcp_if_include lo)
fail() { echo "FAIL: $*" >&2; exit 1; }

for n in 2 4; do
  out=$(mpirun -np "$n" "${mpirun_flags[@]}" "$worker" 2>&1) || fail "mpirun -np $n: $out"
  sum=$((n * (n + 1) / 2))
  for ((r = 0; r < n; r++)); do
    grep -q "^rank $r of $n: sum $sum\$" <<<"$out" || fail "rank $r of $n: $out"
  done
done

start=$SECONDS
out=$(DUET_COLLECTIVE_TIMEOUT_S=2 timeout 60 mpirun -np 2 -x DUET_COLLECTIVE_TIMEOUT_S \
  "${mpirun_flags[@]}" "$worker" stall 1 2>&1)
status=$?
((status != 0)) || fail "a stalled rank: mpirun exited 0: $out"
((status != 124)) || fail "a stalled rank: the job hung: $out"
grep -q "distribute (mpi): rank 0 of 2: all_reduce (sum) of float32 (1,) failed after" <<<"$out" ||
  fail "a stalled rank: no error naming the collective: $out"
((SECONDS - start < 30)) || fail "a stalled rank: took $((SECONDS - start)) s"
echo "PASS"
