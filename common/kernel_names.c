#include "kernel_names.h"

#include <string.h>

#include "strbuf.h"

int bl_kernel_name_known(const char *name)
{
    return bl_list_has(BL_KERNEL_NAMES, ", ", name, strlen(name));
}
