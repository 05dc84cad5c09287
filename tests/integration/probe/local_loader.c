/* local_loader LIB: loads LIB with RTLD_LOCAL (as Python loads an
 * extension module) and exits with what its bl_mpi_module_run returns
 * (test_probe.sh). It links no MPI itself. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    void *lib, *sym;
    int (*run)(void);
    if (argc != 2) {
        fprintf(stderr, "usage: local_loader LIB\n");
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "local_loader: %s\n", dlerror());
        return 2;
    }
    sym = dlsym(lib, "bl_mpi_module_run");
    if (!sym) {
        fprintf(stderr, "local_loader: %s\n", dlerror());
        return 2;
    }
    memcpy(&run, &sym, sizeof run); /* ISO C has no cast to a function pointer */
    return run();
}
