#!/usr/bin/env bash
# Every input error names where it is and what to do: a table of broken
# inputs (sweep files, app: sweeps, topology XML, --cpuset, layout options,
# HDF5 inputs, Slurm options). For each row the message must hold every
# expected piece: the file with line:column where the input has them, the
# offending value (a long one cut to its head and length, the reason still
# after it) and the accepted values or the fix. docs/errors.md. Nothing is
# launched: each row is refused before any run (exit 2; an unreadable
# HDF5 input: 1).
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
cd "$WORK"
LONG=$(printf 'x%.0s' $(seq 3000))
NINES=$(printf '9%.0s' $(seq 3000))
KERNEL='kernels:\n  - {name: triad, size: 1MiB}\n'

# sweep FILE TEXT: a sweep file (printf format) for the rows below
sweep() { printf "$2" "${@:3}" >"$1"; }
checked=0
# row WHAT RC EXPECT... -- ARGS...: bindlab ARGS exits RC and says each EXPECT
row() {
    local what=$1 want=$2 expect=() out rc
    shift 2
    while [ "$1" != -- ]; do expect+=("$1"); shift; done
    shift
    set +e
    out=$("$BINDLAB" "$@" 2>&1 </dev/null)
    rc=$?
    set -e
    [ "$rc" = "$want" ] || fail "$what: exit $rc, expected $want: $out"
    for e in "${expect[@]}"; do
        grep -qF -- "$e" <<<"$out" || fail "$what: the message lacks '$e': $out"
    done
    [ "${#out}" -le 1100 ] || fail "$what: the message is ${#out} characters (a value echoed whole?)"
    checked=$((checked + 1))
}

# --- sweep files: line:column, the value, what is accepted ---
sweep syntax.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, map_by: core\n"
row "YAML syntax" 2 "syntax.yaml:6:1: YAML syntax: did not find expected ',' or '}'" "accepted: a mapping of sweep keys" -- sweep syntax.yaml --dry-run
sweep tab.yaml "name: s\n${KERNEL}layouts:\n\t- {np: 1}\n"
row "a tab" 2 "tab.yaml:5:1: YAML syntax: found character that cannot start any token" -- sweep tab.yaml --dry-run
sweep np.yaml "name: s\n${KERNEL}layouts:\n  - {np: zz}\n"
row "np not a number" 2 "np.yaml:5:10: np 'zz': accepted: a whole number of ranks, 1 or more" -- sweep np.yaml --dry-run
sweep key.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, colour: red}\n"
row "unknown key" 2 "key.yaml:5:13: layouts: unknown key 'colour'; accepted: kernel, np, map_by" -- sweep key.yaml --dry-run
sweep twice.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, np: 2}\n"
row "a key twice" 2 "twice.yaml:5:13: layouts: key 'np' is given twice (first at 5:6); keep one" -- sweep twice.yaml --dry-run
sweep long.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, map_by: %s}\n" "$LONG"
row "a 3000-character map_by" 2 "long.yaml:5:21: map_by '${LONG:0:60}... (3000 characters)': accepted: hwthread, core" -- sweep long.yaml --dry-run
sweep size.yaml "name: s\nkernels:\n  - {name: triad, size: %s}\nlayouts:\n  - {np: 1}\n" "$LONG"
row "a 3000-character size" 2 "size.yaml:3:25: size: '${LONG:0:60}... (3000 characters)' is not a size like 1.5GiB" -- sweep size.yaml --dry-run
sweep places.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, omp_places: 'cores(x'}\n"
row "omp_places" 2 "places.yaml:5:25: omp_places 'cores(x': accepted: threads, cores" -- sweep places.yaml --dry-run
sweep threads.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, threads: -3}\n"
row "threads" 2 "threads.yaml:5:22: threads '-3': accepted: a number of threads per rank (1 or more) or fill" -- sweep threads.yaml --dry-run
sweep timeout.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, timeout: abc}\n"
row "timeout" 2 "timeout.yaml:5:22: timeout 'abc': accepted: seconds" -- sweep timeout.yaml --dry-run
sweep noisy.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, noisy: 'cpu:zz'}\n"
row "noisy" 2 "noisy.yaml:5:20: noisy 'cpu:zz': unknown hog 'cpu:zz'; accepted: none, cpu, mem" -- sweep noisy.yaml --dry-run
sweep name.yaml "name: 'a/b'\n${KERNEL}layouts:\n  - {np: 1}\n"
row "name a path" 2 "name.yaml:1:7: name 'a/b': accepted: 1 to 63 letters" -- sweep name.yaml --dry-run
sweep line.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1, map_by: %s%s}\n" "$LONG" "$LONG"
row "a line over the limit" 2 "line.yaml:5:4097: line longer than 4096 characters" -- sweep line.yaml --dry-run
sweep kern.yaml "name: s\nkernels:\n  - {name: triadd, size: 1MiB}\nlayouts:\n  - {np: 1}\n"
row "an unknown kernel" 2 "kern.yaml:3:12: kernel name 'triadd': no such kernel; accepted: triad, stencil, lu, shared, latency, c2c" -- sweep kern.yaml --dry-run
sweep longkern.yaml "name: s\nkernels:\n  - {name: %s}\nlayouts:\n  - {np: 1}\n" "$LONG"
row "a 3000-character kernel name" 2 "longkern.yaml:3:12: kernel name '${LONG:0:60}... (3000 characters)': no such kernel; accepted: triad" -- sweep longkern.yaml --dry-run
# app: sweeps
sweep appkey.yaml "name: s\napp:\n  command: [./x]\n  colour: 1\nlayouts:\n  - {np: 1}\n"
row "app: unknown key" 2 "appkey.yaml:4:3: app: unknown key 'colour'; accepted: command, env, rate" -- sweep appkey.yaml --dry-run
sweep appcmd.yaml "name: s\napp:\n  command: ./x\nlayouts:\n  - {np: 1}\n"
row "app: command not a list" 2 "appcmd.yaml:3:12: app: command: expected a list, found a single value" -- sweep appcmd.yaml --dry-run
sweep appph.yaml "name: s\napp:\n  command: [./x, '{nosuch}']\nlayouts:\n  - {np: 1}\n"
row "app: placeholder" 2 "appph.yaml:3:18: app: command '{nosuch}': unknown placeholder {nosuch}; accepted: {np}" -- sweep appph.yaml --dry-run
sweep appenv.yaml "name: s\napp:\n  command: [./x]\n  env: {'A B': 1}\nlayouts:\n  - {np: 1}\n"
row "app: env name" 2 "appenv.yaml:4:9: app: env: 'A B' is not a variable name; accepted: letters, digits and '_'" -- sweep appenv.yaml --dry-run

# --- topology XML: line:column where it breaks, or what hwloc refuses ---
printf '<?xml version="1.0"?>\n<topology>\n<object type="Machine"\n' >trunc.xml
row "truncated topology XML" 2 "topology trunc.xml:4:1: not well-formed XML (" "make one with lstopo --of xml FILE" -- plan -np 1 --topology trunc.xml
printf '<?xml version="1.0"?>\n<topology>\n<object type="Machine" os_index="0"/>\n</topology>\n' >nocpus.xml
row "XML hwloc refuses" 2 "topology 'nocpus.xml': well-formed XML, but not a topology hwloc accepts (HWLOC_XML_VERBOSE=1 shows why)" -- plan -np 1 --topology nocpus.xml
row "a missing topology" 2 "topology '/nonexistent/n.xml': no such file" -- plan -np 1 --topology /nonexistent/n.xml
row "a bad synthetic topology" 2 "topology 'pack:2 core:zz': not a file, and not an hwloc synthetic description (e.g." -- plan -np 1 --topology 'pack:2 core:zz'

# --- option values: the value (a long one cut), what is accepted ---
row "--cpuset" 2 "--cpuset: cpuset '0-zz': expected a list like '0-3,8'" -- plan -np 1 --cpuset 0-zz
row "a 3000-character --cpuset" 2 "--cpuset: cpuset '${LONG:0:60}... (3000 characters)': expected a list like '0-3,8'" -- plan -np 1 --cpuset "$LONG"
row "a 3000-character --map-by" 2 "map_by '${LONG:0:60}... (3000 characters)': accepted: hwthread, core" -- plan -np 1 --map-by "$LONG"
row "-np" 2 "np 'abc': accepted: a whole number of ranks, 1 or more" -- plan -np abc
sweep ok.yaml "name: s\n${KERNEL}layouts:\n  - {np: 1}\n"
row "slurm --time" 2 "--time: '1:2:3:4' is not a Slurm time; accepted: MINUTES" "e.g. 2:00:00" -- slurm ok.yaml --time 1:2:3:4 -o ok.sbatch
row "a 3000-digit slurm --time" 2 "--time: '${NINES:0:60}... (3000 characters)' is not a Slurm time" -- slurm ok.yaml --time "$NINES" -o ok.sbatch
row "slurm --partition" 2 "--partition: 'a b' cannot go into an #SBATCH line" "accepted: letters, digits" -- slurm ok.yaml --partition 'a b' -o ok.sbatch

row "run --timeout" 2 "--timeout 'abc': accepted: whole seconds, 1 to 1000000" -- run --timeout abc -- /bin/true
row "a 3000-character run --timeout" 2 "--timeout '${LONG:0:60}... (3000 characters)': accepted: whole seconds" -- run --timeout "$LONG" -- /bin/true
# bindlab run: where the record goes and what the program is, before any launch
row "run --out in a missing directory" 2 "--out nodir/x.h5: the directory nodir does not exist; make it first (mkdir -p nodir)" -- run --out nodir/x.h5 -- /bin/true
mkdir -p outdir
row "run --out a directory" 2 "--out outdir: a directory; give the record's file name, e.g. outdir/run.h5" -- run --out outdir -- /bin/true
: >kept.h5
row "run --out an existing file" 2 "--out kept.h5: the file exists; bindlab never replaces an input (give a new name)" -- run --out kept.h5 -- /bin/true
printf '#!/bin/sh\n' >noexec.sh
row "run of a file that is not executable" 2 "./noexec.sh: not executable (chmod +x it" -- run --out n.h5 -- ./noexec.sh
ln -s nowhere dangling
row "run of a dangling link" 2 "./dangling: a symbolic link to a file that does not exist" -- run --out n.h5 -- ./dangling
row "run of a directory" 2 "./outdir: a directory, not a program" -- run --out n.h5 -- ./outdir
row "sweep --noisy" 2 "--noisy: noisy 'zz': unknown hog 'zz'; accepted: none, cpu, mem" -- sweep ok.yaml --noisy zz --dry-run
row "sweep --shard" 2 "--shard: '3/2' is not I/K with 1 <= I <= K (e.g. 2/8)" -- sweep ok.yaml --shard 3/2 --dry-run

# --- a launcher's binding report: FILE:LINE, the line, the fix ---
printf '[vm:1] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n[vm:1] MCW rank 1 bound to socket 0[core 99[hwt 0]]: [B/.]\n' >report.txt
row "a binding report naming a core the node lacks" 1 "report.txt:2: core 99 is not in the topology (pass --topology for the node that printed it): '[vm:1] MCW rank 1" -- bindings report.txt --topology 'pack:1 core:2 pu:1'

# --- HDF5 inputs: the file and what is wrong with it ---
echo 'not hdf5' >bad.h5
row "report of a non-HDF5 file" 1 "bad.h5: not an HDF5 file (truncated, or still being written?)" -- report bad.h5
row "compare of a non-HDF5 file" 1 "bad.h5: not an HDF5 file (truncated, or still being written?)" -- compare bad.h5 bad.h5
row "merge of a non-HDF5 file" 1 "skipped: bad.h5: not an HDF5 file" "no readable input; m.h5 not written" -- merge -o m.h5 bad.h5

echo "ok: $checked broken inputs, each named where it is, with its value and the fix"
