"""A tiny MPI + numpy program for bindlab's tests.

Each rank multiplies two N x N matrices REPS times with numpy (OpenBLAS,
which runs the product on its own worker threads when the rank may use
more than one CPU), then the ranks sum their rates with an allreduce.
Rank 0 prints the MPI library's name ("mpi: ..."), then for every rank the
CPUs it may run on and its thread count as the program sees them, then
the total as "rate: <GFLOP/s> GFLOP/s".

    mpirun -np 2 python matmul.py [N [REPS]]     (default 768 20)
"""
import os
import sys

import numpy as np
from mpi4py import MPI


def main():
    comm = MPI.COMM_WORLD
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 768
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rng = np.random.default_rng(comm.rank)
    a = rng.random((n, n))
    b = rng.random((n, n))
    c = a @ b  # untimed: OpenBLAS starts its threads on the first product
    comm.Barrier()
    start = MPI.Wtime()
    for _ in range(reps):
        c = a @ b
    seconds = MPI.Wtime() - start
    rate = comm.allreduce(2.0 * n**3 * reps / seconds / 1e9)
    # The sum of the products' traces ties the output to the work done.
    trace = comm.allreduce(float(np.trace(c)))
    cpus = sorted(os.sched_getaffinity(0))
    threads = len(os.listdir("/proc/self/task"))
    lines = comm.gather(f"rank {comm.rank}: cpus {','.join(map(str, cpus))} "
                        f"threads {threads}")
    if comm.rank == 0:
        library = MPI.Get_library_version().split("\0")[0].splitlines()[0]
        print(f"mpi: {library}")
        print("\n".join(lines))
        print(f"ranks: {comm.size} n: {n} reps: {reps} trace: {trace:.6g}")
        print(f"rate: {rate:.2f} GFLOP/s", flush=True)


if __name__ == "__main__":
    main()
