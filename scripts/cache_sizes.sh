# shellcheck shell=bash
# The latency chase's buffer size for each cache level, worked out from
# cpu0's caches in sysfs, in one place for bench/latency.sh and
# tests/integration/test_latency_c2c.sh, so that the benchmark and the test
# measure the same sizes. Sourced, not run.

# cache_bytes LEVEL TYPE: cpu0's cache of that level and type (Data,
# Unified), in bytes; nothing when sysfs names none.
cache_bytes() {
    local d
    for d in /sys/devices/system/cpu/cpu0/cache/index*; do
        if [ "$(cat "$d/level")" = "$1" ] && [ "$(cat "$d/type")" = "$2" ]; then
            numfmt --from=iec "$(cat "$d/size")"
            return
        fi
    done
}

# chase_bytes LEVEL: the bytes of a chase that stays in LEVEL:
#   l1, l2   half the L1d / the L2 (the other half for the stack, the
#            page tables and the other lines the loop touches);
#   l3       8 x L2, only when the L3 is more than 16 x L2 (status 1 when
#            there is no L3 that much bigger: no size is in it and out of L2);
#   mem      4 x the last level, at least 256 MiB;
#   past-l2  4 x L2: out of the L2, wherever the next level is.
# Status 1 also when sysfs names no L1d or L2.
chase_bytes() {
    local l1d l2 l3 m
    l1d=$(cache_bytes 1 Data)
    l2=$(cache_bytes 2 Unified)
    l3=$(cache_bytes 3 Unified)
    [ -n "$l1d" ] && [ -n "$l2" ] || return 1
    case $1 in
        l1) echo $((l1d / 2)) ;;
        l2) echo $((l2 / 2)) ;;
        l3) [ -n "$l3" ] && [ "$l3" -gt $((16 * l2)) ] || return 1
            echo $((8 * l2)) ;;
        mem) m=$((4 * ${l3:-$l2}))
             [ "$m" -ge $((256 << 20)) ] || m=$((256 << 20))
             echo "$m" ;;
        past-l2) echo $((4 * l2)) ;;
        *) return 1 ;;
    esac
}
