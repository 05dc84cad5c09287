/* bindlab run's checks before launching: the program is found and
 * executable, and the probe can see it (an ELF with a program interpreter
 * or needed libraries; a static binary never loads LD_PRELOAD), and where
 * the probe library is. */
#include "run/run.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/launcher_choice.h"
#include "sys_util.h"

#define PROBE_NAME "libbindlab-probe.so"

/* Why a path is not a program: each case has its own fix. */
static int not_a_program(const char *name, bl_err *err)
{
    struct stat st;
    if (lstat(name, &st) < 0)
        return bl_err_set(err, "%s: no such file", name);
    if (stat(name, &st) < 0)
        return bl_err_set(err, "%s: a symbolic link to a file that does not "
                          "exist", name);
    if (S_ISDIR(st.st_mode))
        return bl_err_set(err, "%s: a directory, not a program", name);
    if (!S_ISREG(st.st_mode))
        return bl_err_set(err, "%s: not a regular file", name);
    return bl_err_set(err, "%s: not executable (chmod +x it, or give its "
                      "interpreter first, e.g. -- python3 %s)", name, name);
}

int bl_run_program_find(const char *name, char *buf, size_t len, bl_err *err)
{
    if (bl_find_program(name, buf, len) == 0)
        return 0;
    if (strchr(name, '/'))
        return not_a_program(name, err);
    return bl_err_set(err, "%s: not found in PATH", name);
}

/* 1 when the n bytes of dynamic entries at dyn hold a DT_NEEDED. */
static int has_needed64(const unsigned char *img, size_t size, Elf64_Off off,
                        Elf64_Xword n)
{
    for (Elf64_Xword i = 0; off + (i + 1) * sizeof(Elf64_Dyn) <= size &&
                            i < n / sizeof(Elf64_Dyn); i++) {
        Elf64_Dyn d;
        memcpy(&d, img + off + i * sizeof d, sizeof d);
        if (d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_NEEDED)
            return 1;
    }
    return 0;
}

/* 1 dynamic, 0 static, -1 not a 64-bit ELF this check reads. */
static int elf64_dynamic(const unsigned char *img, size_t size)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh)
        return -1;
    memcpy(&eh, img, sizeof eh);
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        size_t at = eh.e_phoff + (size_t)i * eh.e_phentsize;
        if (eh.e_phentsize < sizeof ph || at + sizeof ph > size)
            return -1;
        memcpy(&ph, img + at, sizeof ph);
        if (ph.p_type == PT_INTERP)
            return 1;
        if (ph.p_type == PT_DYNAMIC &&
            has_needed64(img, size, ph.p_offset, ph.p_filesz))
            return 1;
    }
    return 0;
}

/* The whole file (programs are read once, before the launch). */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        *size = (size_t)n;
    fclose(f);
    return buf;
}

int bl_run_program_check(const char *path, bl_err *err)
{
    size_t size = 0;
    unsigned char *img = slurp(path, &size);
    int dyn;
    if (!img)
        return bl_err_set(err, "%s: cannot read it", path);
    if (size >= 2 && img[0] == '#' && img[1] == '!') {
        free(img); /* a script: its interpreter is what the probe sees */
        return 0;
    }
    if (size < EI_NIDENT || memcmp(img, ELFMAG, SELFMAG) != 0)
        dyn = -2;
    else if (img[EI_CLASS] != ELFCLASS64)
        dyn = 1; /* 32-bit: let the loader decide; the probe is 64-bit */
    else
        dyn = elf64_dynamic(img, size);
    free(img);
    if (dyn == -2)
        return bl_err_set(err, "%s: not an ELF executable or a script", path);
    if (dyn == 0)
        return bl_err_set(err, "%s: statically linked (no program "
                          "interpreter, no needed libraries): LD_PRELOAD "
                          "cannot load the probe into it", path);
    if (dyn < 0)
        return bl_err_set(err, "%s: an ELF file whose program headers "
                          "cannot be read", path);
    return 0;
}

int bl_run_probe_path(char *buf, size_t len, bl_err *err)
{
    const char *env = getenv("BINDLAB_PROBE");
    char dir[PATH_MAX];
    if (env && *env) {
        if (access(env, R_OK) != 0)
            return bl_err_set(err, "BINDLAB_PROBE '%s': not a readable "
                                   "file", env);
        return bl_textf(buf, len, "%s", env) < 0
                   ? bl_err_set(err, "BINDLAB_PROBE: path too long") : 0;
    }
    if (bl_self_dir(dir, sizeof dir, err) < 0)
        return -1;
    if (bl_textf(buf, len, "%s/%s", dir, PROBE_NAME) == 0 &&
        access(buf, R_OK) == 0)
        return 0;
    if (bl_textf(buf, len, "%s/../lib/bindlab/%s", dir, PROBE_NAME) == 0 &&
        access(buf, R_OK) == 0)
        return 0;
    return bl_err_set(err, "%s not found in %s or %s/../lib/bindlab; build "
                           "it (target bindlab-probe) or set BINDLAB_PROBE",
                      PROBE_NAME, dir, dir);
}
