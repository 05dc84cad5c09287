# shellcheck shell=bash
# What the benchmark scripts share. Sourced, not run.

# median_of_column COLUMN: the median of that column of the lines on
# standard input (any number sort -g reads: 1e-3, 0.25); the mean of the
# two middle values for an even count; "nan" when there is none.
median_of_column() {
    sort -g -k"$1,$1" | awk -v c="$1" '{ v[NR] = $c } END {
        if (NR == 0) { print "nan"; exit }
        print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# median: the same of the first column.
median() { median_of_column 1; }

# time_v_row KIND N TIMEFILE: one line "KIND N wall_s peak_kb cpu_s" from
# the report of /usr/bin/time -v in TIMEFILE (cpu: user + system).
time_v_row() {
    awk -v k="$1" -v n="$2" '/Elapsed \(wall clock\)/ { split($NF, t, ":"); s = t[1] * 60 + t[2];
                    if (length(t) == 3) s = t[1] * 3600 + t[2] * 60 + t[3] }
                   /Maximum resident/ { kb = $NF }
                   /User time|System time/ { cpu += $NF }
                   END { print k, n, s, kb, cpu }' "$3"
}

# scale_rows ROWS KIND N...: for each N in turn, from the lines of file
# ROWS "KIND N wall_s peak_kb cpu_s" (time_v_row), one line "N wall_s
# cpu_s peak_MiB ratio_wall ratio_cpu": medians over the rounds, and the
# growth time(N)/time(previous N) when N doubles it ("-" otherwise). Sets
# SCALE_WORST (the largest CPU ratio, 0 without a doubling) and
# SCALE_WALL, SCALE_CPU, SCALE_MIB (the last N's).
scale_rows() {
    local rows=$1 kind=$2 n t kb cpu ratio ratio_cpu prev_n="" prev_t="" prev_c=""
    shift 2
    SCALE_WORST=0
    for n in "$@"; do
        t=$(awk -v k="$kind" -v n="$n" '$1 == k && $2 == n { print $3 }' "$rows" | median)
        kb=$(awk -v k="$kind" -v n="$n" '$1 == k && $2 == n { print $4 }' "$rows" | median)
        cpu=$(awk -v k="$kind" -v n="$n" '$1 == k && $2 == n { print $5 }' "$rows" | median)
        ratio=- ratio_cpu=-
        if [ -n "$prev_n" ] && [ "$n" = $((2 * prev_n)) ]; then
            ratio=$(awk -v a="$prev_t" -v b="$t" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
            ratio_cpu=$(awk -v a="$prev_c" -v b="$cpu" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
            SCALE_WORST=$(awk -v a="$SCALE_WORST" -v b="$ratio_cpu" 'BEGIN { print (b > a ? b : a) }')
        fi
        SCALE_WALL=$t SCALE_CPU=$cpu
        SCALE_MIB=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
        echo "$n $t $cpu $SCALE_MIB $ratio $ratio_cpu"
        prev_n=$n prev_t=$t prev_c=$cpu
    done
}

# scale_args [ROUNDS [N ...]]: the arguments of the scale benchmarks into
# rounds (default 3) and sizes (default 256 512 1024 2048 4096 8192 10000).
scale_args() {
    rounds=${1:-3}
    shift $(( $# > 0 ? 1 : 0 ))
    sizes=${*:-"256 512 1024 2048 4096 8192 10000"}
}
