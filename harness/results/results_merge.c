/* The work of `bindlab merge` (bl_h5_merge, results_merge_child.c, runs
 * it in a child process): a new file built from its inputs, read one at a
 * time through the sink (results_merge_priv.h), written atomically. */
#include "results/results_merge_priv.h"

#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

static int by_run_id(const void *a, const void *b)
{
    return strcmp(((const bl_h5_summary *)a)->run_id,
                  ((const bl_h5_summary *)b)->run_id);
}

int bl_merge_create_runs(hid_t file, bl_err *err)
{
    hid_t g = H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create /runs");
    H5Gclose(g);
    return 0;
}

int bl_merge_here(const bl_merge_job *job, bl_h5_merge_conflict_fn *conflict,
                  bl_h5_merge_unreadable_fn *bad, void *ctx, int *duplicates,
                  int *unreadable, bl_err *err)
{
    const char *out = job->out;
    size_t ninputs = job->ninputs;
    bl_merge_sink st;
    int rc = 0;
    size_t readable = 0;
    hid_t file;
    bl_err first = {""};

    *duplicates = 0;
    *unreadable = 0;
    /* Built in memory and written through bl_atomic_write: HDF5 1.10 writing
     * straight to a file crashes in H5Ocopy's error path when the disk fills
     * (test_full_disk); a full disk must be an error message, not a crash. */
    if (bl_atomic_check_target(out, err) < 0 ||
        (file = bl_h5_mem_create(out, err)) < 0)
        return -1;
    rc = bl_h5_write_root(file, "sweep", job->command, err);
    if (rc == 0)
        rc = bl_merge_create_runs(file, err);
    if (rc == 0)
        rc = bl_merge_sink_init(&st, file, 1, err);
    else
        memset(&st, 0, sizeof st);
    st.names = job->inputs;
    st.out_name = out;
    st.conflict = conflict;
    st.ctx = ctx;
    if (rc == 0)
        readable = bl_merge_sink_add_files(&st, ninputs, bad, ctx,
                                           unreadable, &first);
    if (rc == 0 && readable == 0 && ninputs > 0)
        rc = bl_err_set(err, "no readable input; %s not written", out);
    if (rc == 0) {
        /* the summary rows (a few hundred bytes a run) are all that is
         * kept in memory: sorted by run id, written once */
        if (st.nrows > 1) /* qsort(NULL, 0, ...) is undefined */
            qsort(st.rows, st.nrows, sizeof *st.rows, by_run_id);
        /* growable, so that a sweep can go on appending to it */
        rc = bl_h5_table_create_growable(file, &bl_h5_summary_def, err);
        if (rc == 0)
            rc = bl_h5_table_append(file, &bl_h5_summary_def, st.rows,
                                    st.nrows, err);
    }
    *duplicates = st.duplicates;
    bl_merge_sink_free(&st);
    if (rc == 0 && *unreadable)
        *err = first; /* reported, but the merge still lands */
    if (rc < 0 && readable == 0 && ninputs > 0) {
        H5Fclose(file); /* nothing to write: OUT left as it was */
        return -1;
    }
    return bl_h5_mem_commit(file, out, rc, err);
}
