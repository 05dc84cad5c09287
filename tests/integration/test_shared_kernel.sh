#!/bin/bash
# bindlab-app --kernel shared end to end: verified under mpirun with reads
# and writes, its rate unit and checksum in the run file (read with h5py),
# the checksum the same for 1 and 2 threads (the lookups do not depend on
# the thread count), and --writes refused by another kernel.
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }

for t in 1 2; do
    OMP_NUM_THREADS=$t "${MPIRUN[@]}" -np 1 "$BINDLAB_APP" --kernel shared --size 4MiB \
        --iters 2 --warmup 1 --writes 20 --seed 7 --out "$WORK/t$t.h5" >"$WORK/t$t.out" 2>&1 ||
        { cat "$WORK/t$t.out" >&2; fail "--kernel shared with $t thread(s) failed"; }
done
"$PY" - "$WORK/t1.h5" "$WORK/t2.h5" <<'PY'
import sys, h5py
sums = []
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        res = f["run/result"].attrs
        unit = res["rate_unit"]
        unit = unit.decode() if isinstance(unit, bytes) else unit
        assert int(res["verified"]) == 1, path
        assert unit == "Mlookup/s", unit
        assert float(res["rate"]) > 0, res["rate"]
        sums.append(float(res["checksum"]))
# 4 MiB = 524288 entries; uniform 32-bit keys average about 2^31.
assert sums[0] == sums[1], sums
assert abs(sums[0] / 2**31 - 1) < 0.01, sums
print("ok: shared verified with 1 and 2 threads, checksum", sums[0])
PY
rc=0
"$BINDLAB_APP" --kernel triad --writes 5 >"$WORK/bad" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--kernel triad --writes: exit $rc, expected 2"
grep -q -- "--writes: --kernel triad does not take it" "$WORK/bad" || fail "message: $(cat "$WORK/bad")"
echo "ok: --kernel shared"
