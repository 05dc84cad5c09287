/* POSIX shell quoting, for showing a command line (--dry-run, the run
 * record) and for every value bindlab writes into a generated script: the
 * quoted text always reads back as exactly the original word. */
#ifndef BL_SHELLQUOTE_H
#define BL_SHELLQUOTE_H

#include <stddef.h>

/* One word: left bare when it has only safe characters
 * ([A-Za-z0-9_@%+=:,./-]), else in single quotes with each ' written as
 * '\''. The empty word is ''. Returns a malloc'ed string or NULL. */
char *bl_shell_quote(const char *word);

/* A NULL-terminated argv as one line of quoted words separated by spaces
 * (malloc'ed, or NULL). */
char *bl_shell_join(char *const *argv);

#endif
