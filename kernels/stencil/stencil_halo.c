/* The stencil's halo exchange: four strips of width R, nonblocking, with
 * derived datatypes straight from and into the array (no pack buffers).
 * The star stencil reads no corner, so all four directions go at once. A
 * missing neighbour is MPI_PROC_NULL, whose requests complete at once. */
#include "stencil/stencil.h"

int bl_stencil_halo_types(bl_stencil *s, bl_err *err)
{
    const int r = s->radius;
    s->row_strip = s->col_strip = MPI_DATATYPE_NULL;
    if (MPI_Type_vector(r, (int)s->lx, (int)s->ld, MPI_DOUBLE,
                        &s->row_strip) != MPI_SUCCESS ||
        MPI_Type_commit(&s->row_strip) != MPI_SUCCESS ||
        MPI_Type_vector((int)s->ly, r, (int)s->ld, MPI_DOUBLE,
                        &s->col_strip) != MPI_SUCCESS ||
        MPI_Type_commit(&s->col_strip) != MPI_SUCCESS)
        return bl_err_set(err, "stencil: cannot build the halo datatypes for "
                          "a %ldx%ld tile", s->lx, s->ly);
    return 0;
}

void bl_stencil_halo_free(bl_stencil *s)
{
    if (s->row_strip != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->row_strip);
    if (s->col_strip != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->col_strip);
}

void bl_stencil_halo_post(bl_stencil *s, MPI_Request req[8])
{
    const long r = s->radius, ld = s->ld, lx = s->lx, ly = s->ly;
    double *u = s->cur;
    /* Owned cell (i, j) sits at u[(j + r) * ld + i + r]. A message's tag is
     * the direction it travels, so a rank receives from the west what its
     * west neighbour sent east. */
    double *recv[4] = {u + r * ld, u + r * ld + lx + r, u + r,
                       u + (ly + r) * ld + r};
    double *send[4] = {u + r * ld + r, u + r * ld + lx, u + r * ld + r,
                       u + ly * ld + r};
    MPI_Datatype type[4] = {s->col_strip, s->col_strip, s->row_strip,
                            s->row_strip};
    static const int opposite[4] = {BL_STENCIL_EAST, BL_STENCIL_WEST,
                                    BL_STENCIL_NORTH, BL_STENCIL_SOUTH};
    for (int d = 0; d < 4; d++)
        MPI_Irecv(recv[d], 1, type[d], s->nbr[d], opposite[d], s->cart,
                  &req[d]);
    for (int d = 0; d < 4; d++) {
        int size = 0;
        MPI_Isend(send[d], 1, type[d], s->nbr[d], d, s->cart, &req[4 + d]);
        if (s->nbr[d] == MPI_PROC_NULL)
            continue;
        MPI_Type_size(type[d], &size);
        s->sent_bytes[d] += size;
        s->sent_msgs[d] += 1;
    }
}

void bl_stencil_halo_wait(bl_stencil *s, MPI_Request req[8])
{
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    if (s->hook == BL_STENCIL_HOOK_HALO_CELL) {
        /* One wrong cell in the first ghost strip that has a sender: the
         * ghost next to the middle of the tile's edge, which the stencil
         * reads. */
        const long r = s->radius;
        for (int d = 0; d < 4; d++) {
            long i, j;
            if (s->nbr[d] == MPI_PROC_NULL)
                continue;
            i = d == BL_STENCIL_WEST ? -1 : d == BL_STENCIL_EAST ? s->lx
                                                                  : s->lx / 2;
            j = d == BL_STENCIL_SOUTH ? -1 : d == BL_STENCIL_NORTH ? s->ly
                                                                    : s->ly / 2;
            s->cur[(j + r) * s->ld + i + r] += 1.0;
            break;
        }
    }
}
