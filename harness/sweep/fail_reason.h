/* The one line a failed run's record gives as its reason, picked from what
 * the launch printed on stderr: the app's own "bindlab-app: ..." line when
 * there is one; else the launcher's message that says a node went away
 * (Open MPI/PRRTE "has lost communication with a remote daemon", srun
 * "Node failure on ..."), then one that says a peer went away, then the
 * launcher's first framed message, then the first line that says anything.
 * A framed message (Open MPI's, between rules of dashes) is given by its
 * first line and the last of its lines that names a node or host, which in
 * Open MPI's messages is the remote side ("Remote daemon: ... on node bl2",
 * "Peer host: bl2"; "connect() to ADDRESS failed"). Which message comes first depends on who noticed
 * first, so the choice goes by what the message says, not where it is. */
#ifndef BL_FAIL_REASON_H
#define BL_FAIL_REASON_H

#include <stddef.h>

/* head, tail: the captured stderr (start and end, either may be NULL).
 * Writes the line into buf (empty when stderr says nothing). */
void bl_fail_reason(const char *head, const char *tail, char *buf, size_t len);

#endif
