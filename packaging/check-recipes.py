#!/usr/bin/env python3
"""Checks packaging/spack/package.py and packaging/easybuild/*.eb without
Spack or EasyBuild installed: the Spack recipe is imported against a stub
`spack.package` that records its directives, and its cmake_args() run on a
fake spec; each easyconfig is evaluated as the Python it is. Both are held
to what the issue asks (versions, variants for MPI and PAPI, the
dependencies) and to the real install tree: every path the easyconfig's
sanity check names must exist under PREFIX (a `cmake --install` prefix).

usage: check-recipes.py PREFIX
"""
import importlib.util
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
calls = []


def directive(name):
    def record(*args, **kwargs):
        calls.append((name, args, kwargs))
    return record


def decorator_factory(*_args, **_kwargs):
    return lambda f: f


class CMakePackage:
    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return "-D%s=%s" % (name, value)

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant])


stub = types.ModuleType("spack.package")
for d in ("version", "variant", "depends_on", "conflicts", "maintainers", "license"):
    setattr(stub, d, directive(d))
stub.CMakePackage = CMakePackage
stub.run_after = decorator_factory
stub.on_package_attributes = decorator_factory
stub.Executable = lambda path: (lambda *a: None)
stub.__all__ = [n for n in dir(stub) if not n.startswith("_")]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stub


def fail(msg):
    sys.exit("FAIL: " + msg)


def check_spack():
    path = os.path.join(HERE, "spack", "package.py")
    spec = importlib.util.spec_from_file_location("bindlab_recipe", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cls = mod.Bindlab
    versions = [c[1][0] for c in calls if c[0] == "version"]
    variants = {c[1][0]: c for c in calls if c[0] == "variant"}
    deps = {c[1][0].split()[0].split("@")[0].split("+")[0] for c in calls if c[0] == "depends_on"}
    for v in ("main", "0.1.0"):
        if v not in versions:
            fail("spack: no version %s" % v)
    for tagged in (c for c in calls if c[0] == "version" and c[1][0] != "main"):
        if not tagged[2].get("tag", "").startswith("v"):
            fail("spack: version %s is not a git tag vX.Y.Z" % tagged[1][0])
    for v in ("mpi", "papi"):
        if v not in variants:
            fail("spack: no variant %s" % v)
    for d in ("mpi", "hwloc", "hdf5", "libyaml", "openblas", "papi", "cmake"):
        if d not in deps:
            fail("spack: no dependency on %s" % d)

    class FakeMpi:
        name = "openmpi"
        mpicc = "/spack/openmpi/bin/mpicc"

    class FakeSpec:
        variants = {"papi": False, "native": False, "mpi": "any"}

        def __getitem__(self, key):
            assert key == "mpi"
            return FakeMpi()

    pkg = cls()
    pkg.spec = FakeSpec()
    args = pkg.cmake_args()
    for want in ("-DBINDLAB_PAPI=OFF", "-DBINDLAB_NATIVE=OFF",
                 "-DMPI_C_COMPILER=/spack/openmpi/bin/mpicc", "-DBINDLAB_MPI_NAME=openmpi"):
        if want not in args:
            fail("spack: cmake_args lacks %s: %s" % (want, args))
    # Every -D the recipe sets must be an option the build knows.
    cmake = open(os.path.join(HERE, "..", "CMakeLists.txt")).read()
    cmake += open(os.path.join(HERE, "..", "cmake", "Install.cmake")).read()
    for a in args:
        opt = a[2:].split("=")[0]
        if opt != "MPI_C_COMPILER" and opt not in cmake:
            fail("spack: -D%s is not an option of CMakeLists.txt" % opt)
    print("ok: spack recipe: versions %s, variants %s, %d dependencies, cmake_args %s"
          % (versions, sorted(variants), len(deps), args))


def check_easybuild(prefix):
    ebdir = os.path.join(HERE, "easybuild")
    files = [f for f in os.listdir(ebdir) if f.endswith(".eb")]
    if not files:
        fail("no easyconfig in packaging/easybuild")
    for f in files:
        env = {"SOURCE_TAR_GZ": "%(name)s-%(version)s.tar.gz"}
        exec(compile(open(os.path.join(ebdir, f)).read(), f, "exec"), env)
        for key in ("easyblock", "name", "version", "homepage", "description", "toolchain",
                    "sources", "dependencies", "sanity_check_paths", "moduleclass"):
            if key not in env:
                fail("%s: no %s" % (f, key))
        if f != "%s-%s-%s-%s.eb" % (env["name"], env["version"], env["toolchain"]["name"],
                                    env["toolchain"]["version"]):
            fail("%s: file name is not NAME-VERSION-TOOLCHAIN-TCVERSION.eb" % f)
        names = {d[0] for d in env["dependencies"] + env.get("builddependencies", [])}
        for d in ("hwloc", "HDF5", "libyaml", "PAPI", "CMake"):
            if d not in names:
                fail("%s: no dependency on %s" % (f, d))
        for kind in ("files", "dirs"):
            for p in env["sanity_check_paths"][kind]:
                if not os.path.exists(os.path.join(prefix, p)):
                    fail("%s: sanity check path %s is not in the install tree %s" % (f, p, prefix))
        print("ok: easyconfig %s: %d sanity paths present in the install tree"
              % (f, sum(len(v) for v in env["sanity_check_paths"].values())))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    check_spack()
    check_easybuild(sys.argv[1])
