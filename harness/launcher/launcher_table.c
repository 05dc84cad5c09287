/* The launchers bindlab knows, in the order their --version answers are
 * tried and --launcher lists them. A new launcher is one file and its
 * entry here. */
#include "launcher/launcher.h"

#include <string.h>

extern const bl_launcher_ops bl_launcher_ompi4, bl_launcher_ompi5,
    bl_launcher_impi, bl_launcher_hydra, bl_launcher_srun;

#define MAX_LAUNCHERS 16

static const bl_launcher_ops *table[MAX_LAUNCHERS] = {
    &bl_launcher_ompi4,
    &bl_launcher_ompi5,
    &bl_launcher_hydra,
    &bl_launcher_impi,
    &bl_launcher_srun,
};

const bl_launcher_ops *bl_launcher_ops_at(size_t i)
{
    return i < MAX_LAUNCHERS ? table[i] : NULL;
}

const bl_launcher_ops *bl_launcher_ops_of(const bl_launcher_info *li)
{
    for (size_t i = 0; i < MAX_LAUNCHERS && table[i]; i++)
        if (table[i]->is ? table[i]->is(li) : table[i]->kind == li->kind)
            return table[i];
    return NULL;
}

const bl_launcher_ops *bl_launcher_ops_named(const char *name)
{
    for (size_t i = 0; name && i < MAX_LAUNCHERS && table[i]; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

int bl_launcher_register(const bl_launcher_ops *ops)
{
    for (size_t i = 0; i < MAX_LAUNCHERS; i++)
        if (!table[i]) {
            table[i] = ops;
            return 0;
        }
    return -1;
}

bl_plan_way bl_launcher_plan_way(const bl_launcher_ops *ops,
                                 const bl_launcher_info *li)
{
    if (!ops)
        return BL_PLAN_CANNOT;
    if (ops->plan_way == BL_PLAN_DRY_RUN && li->major < ops->plan_dry_since)
        return BL_PLAN_TRUE_RANKS;
    return ops->plan_way;
}
