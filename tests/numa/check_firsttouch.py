#!/usr/bin/env python3
"""Checks the first-touch runs of tests/numa/guest_firsttouch.sh: pages
right after first touch and after the timed region, what NUMA balancing
did in between, and what huge pages cost, against expectations from the
runs' own placement rows (where each thread ran) and the settings the
guest script made, read with h5py (independent of bindlab's reader).

  check_firsttouch.py SHARE

Prints one line per check and the measured fractions; exits 1 when any
check fails."""
import re
import sys

import h5py

share = sys.argv[1]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def load(name):
    with h5py.File(f"{share}/{name}.h5", "r") as f:
        res = dict(f["run/result"].attrs)
        numa = f["run/numa"][()]
        place = f["run/placement"][()]
        mem_init = f["run/memory_init"][()]
        mem = f["run/memory"][()]
    out = open(f"{share}/{name}.out").read()
    init = float(res["local_page_fraction_init"])
    after = float(res["local_page_fraction"])
    print(f"     {name}: after first touch {init:.4f}, after the run "
          f"{after:.4f}, migrated {int(res['pages_migrated'])}, huge share "
          f"{float(res['huge_share']):.3f}, best {float(res['best_local_fraction']):.4f}, "
          f"straddles {int(res['straddles'])}")
    return res, numa, place, mem_init, mem, out, init, after


def serial_expectation(place):
    """Serial init puts every page on the master's node: the threads on
    that node hold their shares' pages locally (equal shares)."""
    master = [p["numa"] for p in place if p["thread"] == 0][0]
    return sum(1 for p in place if p["numa"] == master) / len(place), master


def one_node(rows, node):
    """Every page present, all of them on node."""
    held = [r for r in rows if r["pages"] > 0]
    return len(held) == 1 and held[0]["numa_node"] == node


def shown(x):
    """As bindlab prints it: 3 decimals (a share's edge pages belong to the
    thread whose share holds their first byte, so 4098 of 16386 pages is
    the 0.250 of a serial first touch)."""
    return round(x, 3)


# --- balancing on, serial init: the kernel moves pages after first touch
res, numa, place, mem_init, mem, out, init, after = load("ft-balance-serial")
want, master = serial_expectation(place)
check(len({p["numa"] for p in place}) == 4, "4 threads on 4 NUMA nodes")
check(abs(want - 0.25) < 1e-9, "serial init: 1 thread of 4 on the master's node")
check(abs(init - want) <= 0.01, f"balancing on: after first touch {init:.3f} = {want:.2f} +- 0.01")
check(one_node(mem_init, master), "after first touch every page is present, on the master's node")
check(int(numa[0]["numa_balancing"]) == 1, "the record says balancing was on")
mig = int(res["pages_migrated"])
vm = int(numa[0]["vm_numa_pages_migrated"])
check(mig > 0 and vm > 0, f"migration counters non-zero (task {mig}, vmstat {vm})")
check(after > init + 0.01, f"the kernel made it more local: {after:.3f} > {init:.3f}")
m = re.search(r"bindlab-app: pages-migrated: first touch left ([0-9.]+) local; "
              r"the kernel made it ([0-9.]+)", out)
check(m is not None and abs(float(m.group(1)) - init) < 0.006 and
      abs(float(m.group(2)) - after) < 0.006, "pages-migrated flag names both fractions")

# --- balancing off, serial init: nothing moves, no flag
res, numa, place, mem_init, mem, out, init, after = load("ft-nobalance-serial")
want, master = serial_expectation(place)
check(int(numa[0]["numa_balancing"]) == 0, "the record says balancing was off")
check(shown(init) == shown(want) and init == after,
      f"balancing off, THP never: {init:.3f} / {after:.3f} exactly {want:.3f}")
check(int(res["pages_migrated"]) == 0, "no page migrated")
check("pages-migrated" not in out, "no pages-migrated flag")
res, numa, place, mem_init, mem, out, init, after = load("ft-nobalance-parallel")
check(shown(init) == 1.0 and init == after, f"THP never, parallel init: {init:.3f} / {after:.3f} exactly 1.000")
check("huge-page-straddle" not in out and int(res["straddles"]) == 0, "THP never: no straddle")

# --- THP always, shares not aligned: huge pages straddle shares
res, numa, place, mem_init, mem, out, init, after = load("ft-thp-unaligned")
best = float(res["best_local_fraction"])
check(str(numa[0]["thp_enabled"].decode()) == "always", "the record says THP always")
check(float(res["huge_share"]) > 0.5, f"huge pages back the arrays ({float(res['huge_share']):.2f})")
check(int(res["straddles"]) > 0, f"straddles counted ({int(res['straddles'])})")
check(init < 1.0, f"first touch not exact under THP ({init:.3f})")
# The prediction gives each straddling huge page whole to the thread whose
# share starts in it (its first byte, even in the huge page's last base
# page), so first touch under THP reaches it, up to the race of the few
# straddling pages.
check(abs(init - best) <= 0.02,
      f"measured {init:.3f} within 0.02 of the predicted best {best:.3f}")
check("bindlab-app: huge-page-straddle:" in out, "huge-page-straddle flag")

# --- THP always, aligned shares: exact again
res, numa, place, mem_init, mem, out, init, after = load("ft-thp-aligned")
check(float(res["huge_share"]) > 0.5, "aligned: huge pages back the arrays")
check(int(numa[0]["share_align"]) == int(numa[0]["huge_page_bytes"]) > 0,
      "aligned to the huge page size")
check(shown(init) == 1.0, f"aligned shares under THP: {init:.3f} exactly 1.000")
check(int(res["straddles"]) == 0 and "huge-page-straddle" not in out, "aligned: no straddle flag")

# --- THP always, the stencil's aligned rows: all but a row's tail pages
res, numa, place, mem_init, mem, out, init, after = load("ft-thp-stencil-aligned")
best = float(res["best_local_fraction"])
check(int(res["verified"]) == 1, "stencil aligned: verified")
check(float(res["huge_share"]) > 0.5, "stencil aligned: huge pages back the arrays")
check(int(numa[0]["share_align"]) == int(numa[0]["huge_page_bytes"]) > 0,
      "stencil aligned to the huge page size")
check(best >= 0.99 and init >= 0.99,
      f"stencil aligned rows under THP: {init:.4f}, best {best:.4f}, both >= 0.99")
check(abs(init - best) <= 0.02,
      f"stencil: measured {init:.4f} within 0.02 of the predicted best {best:.4f}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all first-touch checks passed")
