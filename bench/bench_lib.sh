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
