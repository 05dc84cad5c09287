/* A short text per rank (its memory policy, its ISA level, its GPUs)
 * gathered into rank 0's rank rows. */
#ifndef BL_APP_RANK_TEXT_H
#define BL_APP_RANK_TEXT_H

#include <stddef.h>

#include <mpi.h>

#include "h5/h5schema.h"

#define BL_RANK_TEXT_MAX 256   /* 19 GPU bus ids */

/* Collective: every rank's text (cut to BL_RANK_TEXT_MAX - 1 bytes) to
 * rank 0, which sets the char * at byte offset `member` of rows[i] (e.g.
 * offsetof(bl_h5_rank, mem_policy)) to a copy of row i's rank's text; rows
 * NULL elsewhere (or when rank 0 has no rows). A row left without text
 * keeps NULL. */
void bl_rank_text_gather(MPI_Comm comm, const char *mine, bl_h5_rank *rows,
                         size_t nrows, size_t member);

#endif
