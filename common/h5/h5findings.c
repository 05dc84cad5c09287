/* A finding appended to a run's findings table (h5schema.h), for the
 * app's and bindlab run's judges alike. */
#include "h5/h5schema.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

int bl_h5_run_add_finding(bl_h5_run *r, size_t *cap, int rank,
                          const char *host, const char *id,
                          const char *severity, const char *text)
{
    if (bl_grow(&r->findings, sizeof *r->findings, r->nfindings, cap, 4) < 0)
        return -1;
    r->findings[r->nfindings++] = (bl_h5_finding){
        rank, strdup(host), strdup(id), strdup(severity), strdup(text)};
    return 0;
}
