#!/usr/bin/env bash
# bindlab sweep of a program this project did not write (app: in the sweep
# file). (a) LAMMPS (tests/apps/lammps/in.lj) over bind_to core and none,
# np 2: both runs ok, each run's record holds both ranks as the probe saw
# them (placement rows of ranks 0 and 1, their processes), the rate is the
# tau/day number LAMMPS printed in that run's log, `bindlab report` ranks
# the two, and --resume runs nothing again. (b) a small program of the
# test's own (sh printing a line) without rate:: the rate is runs per
# second of the job's wall time (unit runs/s, rate x wall_s = 1);
# (c) with a rate regex its output does not match: the run failed, with
# the reason naming the regex; (d) bindlab plan, sweep --dry-run (the
# program's argv filled and quoted) and slurm (the app's argv quoted in a
# comment, a newline in it kept inside, the job going to the directory
# the sweep's relative paths are from) of such sweeps. (a) also plans
# LAMMPS's sweep and writes its Slurm script. LAMMPS missing fails under
# CI=true and is skipped elsewhere (tests/integration/apps_common.sh).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/apps_common.sh"

B=$BINDLAB_BUILD_DIR
DUMP=$B/tests/runrecord_dump
[ -x "$DUMP" ] && [ -f "$B/libbindlab-probe.so" ] || fail "runrecord_dump or the probe not built"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$WORK"

# csv FILE RUN COLUMN: one column of a run's /summary row (bindlab report --csv).
# (A CSV reader: quoted fields such as "outside-allowed,migrated" hold commas.)
csv() {
    "$BINDLAB" report --csv "$1" | /usr/bin/python3 -c '
import csv, sys
for row in csv.DictReader(sys.stdin):
    if row["run_id"] == sys.argv[1]:
        print(row[sys.argv[2]])' "$2" "$3"
}

# --- (b) and (c): sh, a program of the test's own making ------------------
cat >wall.yaml <<'YAML'
app:
  command: [sh, -c, "echo speed {np} {bind_to}"]
layouts: [{np: 2, bind_to: none}]
YAML
"$BINDLAB" sweep wall.yaml ${OVERSUB[@]+"${OVERSUB[@]}"} --results res >wall.out 2>&1 || fail "(b) sweep: $(cat wall.out)"
"$DUMP" res/wall.d/r0000.h5 r0000 >wall.dump || fail "(b) record unreadable"
expect_line wall.dump "status ok"
expect_line wall.dump "ranks 2"
expect_line res/wall.d/r0000.log "speed 2 none"
[ "$(csv res/wall.h5 r0000 rate_unit)" = runs/s ] || fail "(b) unit: $(csv res/wall.h5 r0000 rate_unit)"
awk -v r="$(csv res/wall.h5 r0000 rate)" -v w="$(csv res/wall.h5 r0000 wall_s)" \
    'BEGIN { exit !(r > 0 && (r * w - 1) ^ 2 < 1e-12) }' ||
    fail "(b) rate $(csv res/wall.h5 r0000 rate) is not 1/wall_s $(csv res/wall.h5 r0000 wall_s)"

cat >nomatch.yaml <<'YAML'
app:
  command: [sh, -c, "echo nothing to see"]
  rate: {regex: 'Performance: ([0-9.]+)', unit: tau/day}
layouts: [{np: 2, bind_to: none}]
YAML
rc=0
"$BINDLAB" sweep nomatch.yaml ${OVERSUB[@]+"${OVERSUB[@]}"} --results res >nomatch.out 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "(c) exit $rc, expected 1 (a run failed): $(cat nomatch.out)"
"$DUMP" res/nomatch.d/r0000.h5 r0000 >nomatch.dump || fail "(c) record unreadable"
expect_line nomatch.dump "status failed"
expect_line nomatch.dump "exit_status 0"
expect_line nomatch.dump "reason rate: no match for Performance: ([0-9.]+) in the output"
expect_line nomatch.dump "ranks 2"

# --- (d) plan, dry run and Slurm script of an app: sweep --------------------
"$BINDLAB" plan wall.yaml >plan.out 2>&1 || fail "(d) plan: $(cat plan.out)"
grep -q '^== r0000: np 2 ' plan.out || fail "(d) plan shows no layout r0000: $(cat plan.out)"
"$BINDLAB" sweep --dry-run wall.yaml ${OVERSUB[@]+"${OVERSUB[@]}"} --results dry >dry.out 2>&1 || fail "(d) --dry-run: $(cat dry.out)"
# the program's argv, filled and quoted, after the launcher's words
grep -q "LD_PRELOAD=[^ ]*libbindlab-probe\.so .*/sh -c 'echo speed 2 none'\$" dry.out ||
    fail "(d) the dry run does not show sh's argv quoted: $(cat dry.out)"
[ ! -e dry ] || fail "(d) the dry run made the results directory"
cat >nasty.yaml <<'YAML'
app:
  command: [sh, -c, "echo 'a b' \"$HOME\"\nrm -rf nothing-here", "{np}"]
layouts: [{np: 1, bind_to: none}]
YAML
for f in wall nasty; do
    "$BINDLAB" slurm $f.yaml -o $f.sbatch >$f.slurm.out 2>&1 || fail "(d) slurm $f: $(cat $f.slurm.out)"
    bash -n $f.sbatch || fail "(d) $f.sbatch is not a valid script"
    expect_line $f.sbatch "cd \"\$workdir\" || exit 1"
    grep -qx "workdir=$WORK\\|workdir='$WORK'" $f.sbatch || fail "(d) $f.sbatch: no workdir $WORK: $(cat $f.sbatch)"
done
expect_line wall.sbatch "#   sh -c 'echo speed {np} {bind_to}'"
expect_line nasty.sbatch "#   sh -c 'echo '\\''a b'\\'' \"\$HOME\"?rm -rf nothing-here' '{np}'"
! grep -q '^rm ' nasty.sbatch || fail "(d) a word of the app's argv left the comment: $(cat nasty.sbatch)"

# --- (a) LAMMPS -----------------------------------------------------------
have lmp "Debian package lammps" || apps_end # CI=true: fails; else a skip
cat >lj.yaml <<YAML
app:
  command: [lmp, -in, "$apps/lammps/in.lj", -log, none]
  env: {OMP_NUM_THREADS: "{threads}"}
  rate: {regex: 'Performance: ([0-9.]+) tau/day', unit: tau/day}
sweep: {np: 2, bind_to: [core, none]} # sharing one core: --oversubscribe (apps_common.sh)
YAML
"$BINDLAB" sweep lj.yaml ${OVERSUB[@]+"${OVERSUB[@]}"} --results res >lj.out 2>&1 || fail "(a) sweep: $(cat lj.out)"
"$BINDLAB" plan lj.yaml >ljplan.out 2>&1 || fail "(a) plan: $(cat ljplan.out)"
[ "$(grep -c '^== r000[01]: np 2 ' ljplan.out)" = 2 ] || fail "(a) plan: not 2 layouts: $(cat ljplan.out)"
"$BINDLAB" slurm lj.yaml -o lj.sbatch >ljslurm.out 2>&1 || fail "(a) slurm: $(cat ljslurm.out)"
expect_line lj.sbatch "#   lmp -in $apps/lammps/in.lj -log none"
for run in r0000 r0001; do
    "$DUMP" res/lj.d/$run.h5 $run >$run.dump || fail "(a) $run: record unreadable"
    expect_line $run.dump "status ok"
    expect_line $run.dump "ranks 2"
    for r in 0 1; do
        grep -q "^place $r\.0 " $run.dump || fail "(a) $run: no placement row of rank $r: $(cat $run.dump)"
        grep -q "^process $r pid [0-9]* complete 1 mpi_init 1$" $run.dump ||
            fail "(a) $run: rank $r's process not recorded whole: $(cat $run.dump)"
    done
    printed=$(sed -n 's/^Performance: \([0-9.]*\) tau\/day.*/\1/p' res/lj.d/$run.log)
    [ -n "$printed" ] || fail "(a) $run: no Performance line in its log"
    [ "$(csv res/lj.h5 $run rate_unit)" = tau/day ] || fail "(a) $run: unit"
    awk -v a="$printed" -v b="$(csv res/lj.h5 $run rate)" 'BEGIN { exit !(a == b) }' ||
        fail "(a) $run: rate $(csv res/lj.h5 $run rate) is not LAMMPS's $printed"
done
"$BINDLAB" report res/lj.h5 >report.txt || fail "(a) report"
ranks=$(awk '$1 ~ /^r000[01]$/ { print $1 }' report.txt | wc -l)
[ "$ranks" = 2 ] || fail "(a) report lists $ranks runs: $(cat report.txt)"
ranked=0
for run in r0000 r0001; do
    [ "$(csv res/lj.h5 $run status)" = ok ] && [ "$(csv res/lj.h5 $run verified)" = 1 ] &&
        ranked=$((ranked + 1))
done
[ "$ranked" = 2 ] || fail "(a) report does not rank both runs: $("$BINDLAB" report --csv res/lj.h5)"
grep -q '^lmp: best r000[01] ' report.txt || fail "(a) no best line: $(cat report.txt)"
# The better rate is ranked first.
best=
for run in r0001 r0000; do if [ "$(csv res/lj.h5 $run ratio_best)" = 1 ]; then best=$run; fi; done
other=$([ "$best" = r0000 ] && echo r0001 || echo r0000)
awk -v a="$(csv res/lj.h5 "$best" rate)" -v b="$(csv res/lj.h5 "$other" rate)" 'BEGIN { exit !(a >= b) }' ||
    fail "(a) $best ranked best with the lower rate"

before=$(stat -c %Y res/lj.d/r0000.h5 res/lj.d/r0001.h5)
"$BINDLAB" sweep lj.yaml ${OVERSUB[@]+"${OVERSUB[@]}"} --results res --resume >resume.out 2>&1 || fail "(a) --resume: $(cat resume.out)"
[ "$(stat -c %Y res/lj.d/r0000.h5 res/lj.d/r0001.h5)" = "$before" ] || fail "(a) --resume ran a run again"
! grep -q '^\[' resume.out || fail "(a) --resume ran something: $(cat resume.out)"
echo "ok: $(tail -1 report.txt)"; cat resume.out
