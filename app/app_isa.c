#include "app_isa.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "app_rank_text.h"
#include "isa.h"
#include "strbuf.h"

const char *bl_app_isa_asked(const bl_app_opts *o)
{
    const char *env = getenv("BINDLAB_ISA");
    if (o->isa)
        return o->isa;
    return env && *env ? env : "best";
}

int bl_app_isa_choose(const bl_app_opts *o, bl_err *err)
{
    if (bl_isa_select(bl_app_isa_asked(o), err) == 0)
        return 0;
    return bl_err_prefix(err, "%s", o->isa ? "--isa" : "BINDLAB_ISA");
}

int bl_app_isa_gather(MPI_Comm comm, const bl_app_opts *o, bl_h5_run *run)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    bl_rank_text_gather(comm, bl_isa_name(bl_isa_current()),
                        rank == 0 ? run->rank_rows : NULL, run->nrank_rows,
                        offsetof(bl_h5_rank, isa));
    if (rank != 0)
        return 0;
    bl_strbuf levels = {0};
    /* each level once, in bl_isa order: "avx2,avx512" on mixed nodes */
    for (int i = 0; i < BL_ISA_COUNT; i++) {
        const char *name = bl_isa_name((bl_isa)i);
        for (size_t q = 0; q < run->nrank_rows; q++)
            if (run->rank_rows[q].isa &&
                strcmp(run->rank_rows[q].isa, name) == 0) {
                bl_strbuf_printf(&levels, "%s%s", levels.len ? "," : "",
                                 name);
                break;
            }
    }
    run->isa = bl_strbuf_take(&levels);
    run->isa_asked = strdup(bl_app_isa_asked(o));
    return run->isa && run->isa_asked ? 0 : -1;
}
