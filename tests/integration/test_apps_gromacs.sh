#!/usr/bin/env bash
# GROMACS (Debian's gmx_mpi, tests/apps/gromacs/: a small water box, 100
# steps) under bindlab run and bindlab sweep, rank and thread counts from
# this machine (hwloc):
# (a) ranks bound to cores, -ntomp the PUs of a core: every rank and every
#     OpenMP thread recorded, each rank's set its core, the launcher's
#     report matched; GROMACS says "Non-default thread affinity set,
#     disabling internal thread affinity" and leaves the binding alone: no
#     pinning call, every change it and hwloc make after MPI_Init (their
#     CPU detection) undone, so no drift-after-init flag;
# (b) unbound, -pin on: GROMACS pins its main and OpenMP threads after
#     MPI_Init with pthread_setaffinity_np, the record names its library
#     (libgromacs) as the caller, one PU each, distinct, where they stay;
#     drift-after-init names it, and only it (the detection before, bound
#     and restored, is a note); the report (unbound: the whole machine)
#     matched with the set at MPI_Init, not GROMACS's pinning;
# (c) a 4-layout app (2 on one CPU, where two pairs coincide): sweep, the rate GROMACS's "Performance:" ns/day of
#     each run's log; bindlab report and report --html show it.
# Missing GROMACS fails under CI=true, is skipped elsewhere (apps_common.sh).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/apps_common.sh"

B=$BINDLAB_BUILD_DIR
DUMP=$B/tests/runrecord_dump
[ -x "$DUMP" ] && [ -f "$B/libbindlab-probe.so" ] || fail "runrecord_dump or the probe not built"
have gmx_mpi "Debian package gromacs" && have gmx "Debian package gromacs" || apps_end
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bash "$apps/gromacs/prepare.sh" "$WORK" || fail "tests/apps/gromacs/prepare.sh failed"
cd "$WORK"

allowed_cpus                           # the CPUs this job may use
NCORE=$ALLOWED_CORES
NPU=$ALLOWED_PUS
PER_CORE=$((NPU / NCORE))              # -ntomp of a rank bound to one core
RANKS=$((NCORE < 2 ? NCORE : 2))
MDRUN=(gmx_mpi -quiet mdrun -s topol.tpr -nb cpu -nsteps 100)

# expand LIST: "0-2,5" as "0,1,2,5" (hwloc-calc's form).
expand() { awk -v s="$1" 'BEGIN { n = split(s, p, ","); o = "";
    for (i = 1; i <= n; i++) { if (split(p[i], r, "-") == 2) { for (c = r[1]; c <= r[2]; c++) o = o (o ? "," : "") c }
                               else o = o (o ? "," : "") p[i] } print o }'; }
# place DUMP R.T FIELD: thread T of rank R's allowed set (cpuset) or its
# rank's (rank_cpuset).
place() { awk -v rt="$2" -v k="$3" '$1 == "place" && $2 == rt {
    for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }

# recorded NAME NP THREADS: the record NAME.h5 holds NP complete ranks,
# each with its main thread and THREADS - 1 OpenMP threads, and each
# rank's launcher report line matched.
recorded() {
    local name=$1 np=$2 th=$3 r n
    "$DUMP" "$name.h5" >"$name.dump" || fail "($name) record unreadable"
    expect_line "$name.dump" "status ok"
    expect_line "$name.dump" "ranks $np"
    for r in $(seq 0 $((np - 1))); do
        grep -q "^process $r pid [0-9]* complete 1 mpi_init 1$" "$name.dump" ||
            fail "($name) rank $r not recorded whole: $(cat "$name.dump")"
        expect_line "$name.dump" "thread $r.0 label main"
        n=$(grep -c "^thread $r\.[0-9]* label openmp$" "$name.dump" || true)
        [ "$n" = $((th - 1)) ] || fail "($name) rank $r: $n OpenMP threads, -ntomp $th: $(cat "$name.dump")"
        grep -q "^check $r claimed .* matches 1$" "$name.dump" ||
            fail "($name) rank $r: the launcher's report does not match: $(grep '^check' "$name.dump")"
    done
    echo "($name) $np rank(s) x $th thread(s) recorded, reports matched"
}

# --- (a) bound by the launcher: GROMACS keeps out --------------------------
"$BINDLAB" run -np "$RANKS" --bind-to core --threads "$PER_CORE" --out core.h5 -- \
    "${MDRUN[@]}" -ntomp "$PER_CORE" >core.out 2>&1 || fail "(a) bindlab run: $(cat core.out)"
recorded core "$RANKS" "$PER_CORE"
grep -q "^Non-default thread affinity set, disabling internal thread affinity" core.log ||
    fail "(a) GROMACS did not say it leaves the affinity alone: $(cat core.log)"
for r in $(seq 0 $((RANKS - 1))); do
    core=$(hwloc-calc --physical-output --intersect PU "core:${ALLOWED_CORE_IDS[$r]}")
    for set in $(place core.dump "$r.0" rank_cpuset) $(awk -v r="$r" \
                 '$1 == "place" && index($2, r ".") == 1 { print $6 }' core.dump); do
        [ "$(expand "$set")" = "$core" ] || fail "(a) rank $r: a set $set, not core $r's PUs $core: $(cat core.dump)"
    done
done
! grep -q '^affinity .* phase after-init changed 1 call pthread_setaffinity_np ' core.dump ||
    fail "(a) a thread pinned after init: $(grep '^affinity' core.dump)"
! grep -q '^flags .*drift-after-init' core.dump || fail "(a) drift: $(grep -A30 '^flags' core.out)"
gmx_calls=$(grep -c '^affinity .* phase after-init changed 1 .* caller .*libgromacs' core.dump || true)
if [ "$gmx_calls" -gt 0 ]; then # its CPU detection: bound to each CPU and back
    grep -q '^affinity-restored: .*libgromacs' core.out ||
        fail "(a) GROMACS's $gmx_calls detection changes not reported undone: $(cat core.out)"
fi
echo "(a) bound: GROMACS disabled its pinning; $gmx_calls changes by it after init, all undone"

# --- (b) unbound, -pin on: GROMACS pins ------------------------------------
if [ "$NPU" -ge 2 ]; then
    NP_PIN=$((NPU >= 4 ? 2 : 1))
    T_PIN=$((NPU / NP_PIN > 4 ? 4 : NPU / NP_PIN))
    "$BINDLAB" run -np "$NP_PIN" --bind-to none --threads "$T_PIN" --out pin.h5 -- \
        "${MDRUN[@]}" -ntomp "$T_PIN" -pin on >pin.out 2>&1 || fail "(b) bindlab run: $(cat pin.out)"
    recorded pin "$NP_PIN" "$T_PIN"
    grep -q "^Pinning threads with" md.log || fail "(b) GROMACS did not say it pins: $(cat md.log)"
    ! grep -q '^flags .*binding-mismatch' pin.dump || fail "(b) binding-mismatch: $(cat pin.dump)"
    grep -q '^drift-after-init: .* by [^ ]*libgromacs[^ ]* (pthread_setaffinity_np)$' pin.out ||
        fail "(b) drift-after-init does not name GROMACS: $(cat pin.out)"
    # its CPU detection before the pinning (bound to each CPU and back) is
    # one affinity-restored note, not drift
    ! grep -q '^drift-after-init: .* (sched_setaffinity)$' pin.out ||
        fail "(b) GROMACS's and hwloc's undone detection calls taken for drift: $(cat pin.out)"
    pus=
    # Each compute thread: its last pthread_setaffinity_np after init, by
    # libgromacs, one PU, the set it ends on.
    while read -r rt tid; do
        pin=$(awk -v t="$tid" '$1 == "affinity" && $4 == "after-init" && $8 == "pthread_setaffinity_np" &&
                               $10 == t && $6 == 1 { print $16 " " $14 }' pin.dump | tail -1)
        case $pin in */libgromacs*" "*) ;; *) fail "(b) thread $rt (tid $tid) not pinned by libgromacs: $(cat pin.dump)" ;; esac
        end=$(place pin.dump "$rt" cpuset)
        [ "$(expand "$end" | tr ',' '\n' | wc -l)" = 1 ] && [ "${pin#* }" = "$end" ] ||
            fail "(b) thread $rt pinned to ${pin#* } by ${pin%% *}, ends on $end"
        pus="$pus $end"
    done < <(awk '$1 == "thread" && ($4 == "main" || $4 == "openmp") { print $2 }' pin.dump |
             while read -r rt; do echo "$rt $(awk -v rt="$rt" '$1 == "tid" && $2 == rt { print $3 }' pin.dump)"; done)
    [ "$(tr ' ' '\n' <<<"$pus" | sed '/^$/d' | sort -u | wc -l)" = $((NP_PIN * T_PIN)) ] ||
        fail "(b) $((NP_PIN * T_PIN)) threads pinned to PUs$pus: not one each"
    echo "(b) unbound: GROMACS pinned $((NP_PIN * T_PIN)) threads, one PU each:$pus"
else
    echo "note: one PU, GROMACS's own pinning not run"
fi

# --- (c) a sweep of 4 layouts, the rate GROMACS's ns/day --------------------
T_ALL=$((NPU > 4 ? 4 : NPU))
cat >gmx.yaml <<YAML
app:
  command: [gmx_mpi, -quiet, mdrun, -s, topol.tpr, -nb, cpu, -nsteps, "100",
            -ntomp, "{threads}", -g, "md-{run_id}.log"]
  env: {GMX_MAXBACKUP: "-1"}
  rate: {regex: '^Performance: +([0-9.]+)', unit: ns/day}
layouts:
YAML
# the 4 layouts, those the allowed CPUs make the same written once (on one
# CPU, 2: a sweep refuses a layout given twice)
printf '  - {np: %s, bind_to: %s, threads: %s}\n' "$RANKS" core "$PER_CORE" "$RANKS" none "$PER_CORE" \
    1 none "$T_ALL" 1 core "$PER_CORE" | awk '!seen[$0]++' >>gmx.yaml
NLAYOUT=$(grep -c '^  - {np' gmx.yaml)
"$BINDLAB" sweep gmx.yaml --results res >sweep.out 2>&1 || fail "(c) sweep: $(cat sweep.out)"
# csv RUN COLUMN: one column of a run's /summary row (bindlab report --csv).
"$BINDLAB" report --csv res/gmx.h5 >report.csv || fail "(c) report --csv"
csv() { awk -F, -v run="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
                                          $1 == run { print $c }' report.csv; }
rates=
for run in $(seq -f 'r%04g' 0 $((NLAYOUT - 1))); do
    "$DUMP" res/gmx.d/$run.h5 $run >$run.dump || fail "(c) $run: record unreadable"
    expect_line $run.dump "status ok"
    expect_line $run.dump "thread 0.0 label main"
    printed=$(sed -n 's/^Performance: *\([0-9.]*\) .*/\1/p' res/gmx.d/$run.log)
    [ -n "$printed" ] || fail "(c) $run: no Performance line in its log"
    [ "$(csv $run rate_unit)" = ns/day ] || fail "(c) $run: unit '$(csv $run rate_unit)'"
    awk -v a="$printed" -v b="$(csv $run rate)" 'BEGIN { exit !(a == b && a > 0) }' ||
        fail "(c) $run: rate $(csv $run rate) is not GROMACS's $printed ns/day"
    rates="$rates $printed"
done
"$BINDLAB" report res/gmx.h5 >report.txt || fail "(c) report"
grep -q "ns/day" report.txt || fail "(c) the report does not say ns/day: $(cat report.txt)"
grep -q '^gmx_mpi: best r000[0-9] ' report.txt || fail "(c) no best line: $(cat report.txt)"
"$BINDLAB" report res/gmx.h5 --html report.html >/dev/null || fail "(c) report --html"
grep -q "ns/day" report.html || fail "(c) the HTML report does not say ns/day"
for rate in $rates; do # shown to 4 significant digits, as the text report does
    shown=$(awk -v r="$rate" 'BEGIN { printf "%.4g", r }')
    grep -qF ">$shown<" report.html || fail "(c) the HTML report lacks the rate $shown ($rate)"
done
echo "(c) $NLAYOUT layouts, ns/day:$rates; $(grep '^gmx_mpi: best' report.txt)"

apps_end
