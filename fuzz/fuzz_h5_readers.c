/* libFuzzer target: the HDF5 readers behind `bindlab report` and `merge`
 * (common/h5/h5schema.c, harness/results/results_file.c). The input is an HDF5 file
 * image, opened in memory (H5LTopen_file_image, no file on disk), then
 * read as the harness reads its inputs: /summary (report, merge),
 * /machine, every /nodes/<k> with its merge key, and the app's /run (run
 * files, with a c2c run's /run/matrices), each /runs/<id> with its
 * harness record (sweep files), every /matrices/<kind> (matrix files of
 * `bindlab matrix`), and the page `report --html` draws from them (node
 * maps from the recorded topology XML, pages, iteration times, matrices:
 * harness/report/report_runs.c and the drawing behind it). Seeds: per-run and
 * merged sweep files, a c2c run file and a matrix file, written by the
 * real writers (scripts/fuzz.sh and the fuzz.seeds test make them). The
 * image first goes through h5guard's deep check, as the files of report,
 * merge and compare do; an image it refuses is not read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "h5/h5guard.h"
#include "report/report_html.h"
#include "results/results_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* damaged input is the point */
    return 0;
}

static void read_runs(hid_t file, const bl_h5_summary *rows, size_t n)
{
    /* A few runs are enough: the rest repeat the same code. */
    for (size_t i = 0; i < n && i < 4; i++) {
        char group[512];
        bl_h5_harness h;
        bl_h5_run r;
        bl_err err;
        if (!rows[i].run_id)
            continue;
        bl_h5_run_path(rows[i].run_id, group, sizeof group);
        bl_h5_read_harness(file, group, &h, &err);
        bl_h5_harness_free(&h);
        /* The app's run and the harness record share the group. */
        bl_h5_read_run(file, group, &r, &err);
        bl_h5_run_free(&r);
    }
}

/* Every /matrices/<kind>, as bindlab matrix show reads them. */
static void read_matrices(hid_t file)
{
    char kinds[256], *save = NULL;
    bl_h5_matrix_kinds(file, kinds, sizeof kinds);
    for (char *k = strtok_r(kinds, ", ", &save); k;
         k = strtok_r(NULL, ", ", &save)) {
        bl_h5_matrix m;
        bl_err err;
        if (bl_h5_matrix_read(file, k, &m, &err) == 0)
            bl_h5_matrix_free(&m);
    }
}

/* The HTML page of the summary's runs, built and thrown away. */
static void draw_page(hid_t file, const bl_h5_summary *rows, size_t n)
{
    bl_report r;
    bl_report_detail d;
    bl_err err;
    if (bl_report_build(rows, n, NULL, BL_REPORT_SORT_RATE, &r, &err) < 0)
        return;
    if (bl_report_detail_read_file(file, &r, &d, &err) == 0) {
        free(bl_report_html_text(&r, "fuzz", NULL, &d));
        bl_report_detail_free(&d);
    }
    bl_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hid_t file;
    bl_h5_summary *rows = NULL;
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    size_t n = 0;

    if (size == 0)
        return 0;
    /* What bindlab does before libhdf5 reads a file handed to report,
     * merge or compare (common/h5/h5guard.h): a refused image is not read. */
    {
        char why[512];
        if (bl_h5_guard_image(data, size, 1, why, sizeof why) != 0)
            return 0;
    }
    /* The library copies the image (flags 0): the input stays read-only. */
    file = H5LTopen_file_image((void *)data, size, 0);
    if (file < 0)
        return 0;
    if (H5Lexists(file, "summary", H5P_DEFAULT) > 0 &&
        bl_h5_table_read(file, &bl_h5_summary_def, (void **)&rows, &n,
                         &err) == 0) {
        read_runs(file, rows, n);
        draw_page(file, rows, n);
        bl_h5_table_free(&bl_h5_summary_def, rows, n);
    }
    bl_h5_read_machine(file, &m, &err);
    bl_h5_machine_free(&m);
    {
        bl_h5_machine *nodes = NULL;
        size_t nn = 0;
        if (bl_h5_read_nodes(file, &nodes, &nn, &err) == 0)
            for (size_t k = 0; k < nn; k++) {
                bl_h5_node_key key;
                if (bl_h5_node_key_of(&nodes[k], &key) == 0)
                    bl_h5_node_key_free(&key);
            }
        bl_h5_nodes_free(nodes, nn);
    }
    bl_h5_read_run(file, "run", &r, &err);
    bl_h5_run_free(&r);
    read_matrices(file);
    H5Fclose(file);
    return 0;
}
