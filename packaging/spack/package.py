# Spack recipe for bindlab. Put this file in a Spack repository as
# packages/bindlab/package.py (spack repo create; cp), then:
#   spack install bindlab ^openmpi          (or mpi=mpich, ~papi, ...)
# How it was checked: see docs/install.md ("Spack and EasyBuild").
from spack.package import *


class Bindlab(CMakePackage):
    """Sweeps MPI x OpenMP layouts (ranks, mapping, binding, OpenMP places)
    with a mini-app (triad, stencil, LU) and checks where every rank,
    thread and page really ran; plans layouts for nodes you do not have."""

    # The project has no public home yet: set git to your site's copy.
    homepage = "https://example.org/bindlab"
    git = "https://example.org/bindlab.git"

    maintainers("bindlab")
    license("UNKNOWN")

    # Versions are git tags vX.Y.Z; "main" follows the branch.
    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("papi", default=True, description="Hardware counters through PAPI "
            "(else every counter comes from the kernel's perf events)")
    variant("mpi", default="any", values=("any", "openmpi", "mpich", "intel-oneapi-mpi"),
            multi=False, description="Which MPI to build against (any: the "
            "mpi provider Spack picks)")
    variant("native", default=False, description="Tune kernels for the build host (-march=native)")

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi")
    depends_on("openmpi", when="mpi=openmpi")
    depends_on("mpich", when="mpi=mpich")
    depends_on("intel-oneapi-mpi", when="mpi=intel-oneapi-mpi")
    depends_on("hwloc@2:")
    depends_on("hdf5+hl~mpi")
    depends_on("libyaml")
    # LU's DGEMM: OpenBLAS's OpenMP build, whose threads follow OMP_PLACES.
    depends_on("openblas threads=openmp")
    depends_on("papi", when="+papi")

    # Linux only: /proc/self/exe, perf_event_open, sched_getaffinity.
    conflicts("platform=darwin", msg="bindlab reads Linux-only interfaces")
    conflicts("platform=windows", msg="bindlab reads Linux-only interfaces")

    def cmake_args(self):
        spec = self.spec
        mpi = spec["mpi"]
        return [
            self.define_from_variant("BINDLAB_PAPI", "papi"),
            self.define_from_variant("BINDLAB_NATIVE", "native"),
            self.define("MPI_C_COMPILER", mpi.mpicc),
            # The module version says which MPI (docs/install.md).
            self.define("BINDLAB_MPI_NAME", mpi.name),
        ]

    def setup_run_environment(self, env):
        env.set("BINDLAB_ROOT", self.prefix)
        env.prepend_path("XDG_DATA_DIRS", self.prefix.share)

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed(self):
        bindlab = Executable(self.prefix.bin.bindlab)
        bindlab("--version")
        if self.spec.satisfies("^openmpi"):  # plan asks Open MPI's mapper
            bindlab("plan", "--topology", "qemu-2s", "-np", "2")
