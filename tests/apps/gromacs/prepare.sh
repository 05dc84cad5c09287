#!/usr/bin/env bash
# prepare.sh WORKDIR: a run input for gmx_mpi mdrun in WORKDIR/topol.tpr,
# made from what Debian's gromacs-data ships (nothing downloaded): a 2.5 nm
# box of SPC/E water (gmx solvate fills it from spc216.gro: 510 waters),
# topol.top from topol.top.in, md.mdp. The tools' output goes to
# WORKDIR/prepare.log, shown on failure. Then, in WORKDIR:
#   mpirun -np 2 --bind-to core gmx_mpi mdrun -s topol.tpr -ntomp 1 -nb cpu
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${1:?usage: prepare.sh WORKDIR}
mkdir -p "$work"
cd "$work"
export GMX_MAXBACKUP=-1 # no numbered backups of files it overwrites
{
    gmx -quiet solvate -cs spc216.gro -box 2.5 2.5 2.5 -o water.gro &&
    waters=$(grep -c ' OW ' water.gro) &&
    sed "s/@WATERS@/$waters/" "$here/topol.top.in" >topol.top &&
    gmx -quiet grompp -f "$here/md.mdp" -c water.gro -p topol.top \
        -o topol.tpr -po mdout.mdp
} >prepare.log 2>&1 || {
    cat prepare.log >&2
    echo "prepare.sh: making $work/topol.tpr failed (gmx from Debian's gromacs," \
         "scripts/apps.sh)" >&2
    exit 1
}
