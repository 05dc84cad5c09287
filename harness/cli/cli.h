/* The verbs of the bindlab command. Each takes the arguments after
 * "bindlab" (argv[0] is the verb's name), prints its own output and
 * messages, and returns the process exit status: 0 success, 1 a failure at
 * run time (or, for a checking verb, something found wrong), 2 bad usage
 * or unreadable input, 128 + the signal for a verb stopped by SIGINT or
 * SIGTERM (sweep, run). Adding a verb: one cli_<verb>.c with its options in
 * one table read by bl_cli_parse (cli_options.h), one prototype here, one
 * line in main.c's table. */
#ifndef BL_CLI_H
#define BL_CLI_H

/* bindlab bindings FILE|- [--format F] [--topology FILE|SYNTH] */
int bl_cli_bindings(int argc, char **argv);
/* bindlab merge -o OUT.h5 IN.h5|DIR ... */
int bl_cli_merge(int argc, char **argv);
/* bindlab report FILE.h5 [--csv] [--kernel K] [--sort rate|label|run] */
int bl_cli_report(int argc, char **argv);
/* bindlab compare A.h5 B.h5 [...] [--csv] */
int bl_cli_compare(int argc, char **argv);
int bl_cli_sweep(int argc, char **argv);
/* bindlab slurm SWEEP.yaml [--array[=K]] [--submit] -o FILE.sbatch ... */
int bl_cli_slurm(int argc, char **argv);
/* bindlab plan [--topology T] -np N [layout] | SWEEP.yaml [--format F] [--picture F] */
int bl_cli_plan(int argc, char **argv);
/* bindlab run [layout] [--out FILE.h5] -- PROGRAM [ARGS] */
int bl_cli_run(int argc, char **argv);
/* bindlab check [--json] */
int bl_cli_check(int argc, char **argv);
/* bindlab matrix latency|bandwidth|c2c -o FILE.h5 [--svg F] | show FILE.h5 */
int bl_cli_matrix(int argc, char **argv);
/* bindlab hog cpu|mem [--size S] [--ready-fd FD] [--parent PID] */
int bl_cli_hog(int argc, char **argv);

#endif
