/* Causes in the harness's own environment that make every launch fail the
 * same way, whatever the layout: the working directory removed under the
 * sweep, a TMPDIR that is not a writable directory (the launcher makes
 * its session directory there). A run that failed is said to have failed
 * of them; a sweep stops on them instead of failing every run left, and
 * `bindlab run` refuses to start. docs/sweep-runs.md. */
#ifndef BL_LAUNCH_ENV_H
#define BL_LAUNCH_ENV_H

#include <stddef.h>

/* 1 with the cause in why when one holds now, else 0 (why ""). */
int bl_launch_env_blocked(char *why, size_t len);

#endif
