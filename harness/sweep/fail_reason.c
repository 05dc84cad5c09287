#include "sweep/fail_reason.h"

#include <stdio.h>
#include <string.h>

#include "app_started.h"

/* What a message's first line says, strongest first: a node gone beats a
 * peer gone beats anything else the launcher said. */
static const struct {
    const char *words;
    int weight;
} SAYS[] = {
    {"lost communication", 3}, /* ORTE/PRRTE: a daemon (its node) is gone */
    {"Node failure", 3},       /* srun: error: Node failure on NODE */
    {"unexpectedly disconnected", 2}, /* an MPI peer is gone */
    {"failed to TCP connect", 2},     /* or cannot be reached */
};

static int weight_of(const char *line, size_t n)
{
    for (size_t i = 0; i < sizeof SAYS / sizeof SAYS[0]; i++)
        if (memmem(line, n, SAYS[i].words, strlen(SAYS[i].words)))
            return SAYS[i].weight;
    return 1;
}

/* A line that says something: not blank, not a rule of '-' or '=' (Open
 * MPI frames its messages with them). */
static int informative(const char *line, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strchr(" \t\r-=", line[i]))
            return 1;
    return 0;
}

static int is_rule(const char *line, size_t n)
{
    return n >= 8 && strspn(line, "-") >= n;
}

static const char *next_line(const char *p, size_t n)
{
    return p[n] ? p + n + 1 : NULL;
}

/* The best line found so far and, for a framed message, the line of it
 * naming a node or host. */
typedef struct {
    const char *line, *named;
    size_t n, named_n;
    int weight;
} pick;

/* The last line of the framed message starting after first that names a
 * node, a host or the address a connection failed to (until the closing
 * rule): Open MPI's TCP warning gives the local host and then the peer's
 * address ("Message: connect() to 10.250.0.2:1024 failed"). */
static void find_named(pick *k)
{
    k->named = NULL;
    for (const char *p = next_line(k->line, k->n); p && *p;) {
        size_t m = strcspn(p, "\n");
        if (is_rule(p, m))
            break;
        if (memmem(p, m, " on node ", 9) || memmem(p, m, "host:", 5) ||
            memmem(p, m, "connect() to ", 13)) {
            k->named = p;
            k->named_n = m;
        }
        p = next_line(p, m);
    }
}

/* Every framed message's first line and every unframed line that says a
 * node failed, in text; keeps the heaviest (the earliest of equals). */
static void scan(const char *text, pick *best)
{
    int after_rule = 0;
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (is_rule(p, n)) {
            after_rule = 1;
        } else if (informative(p, n)) {
            int w = weight_of(p, n);
            if ((after_rule || w == 3) && w > best->weight) {
                best->line = p;
                best->n = n;
                best->weight = w;
                if (after_rule)
                    find_named(best);
                else
                    best->named = NULL;
            }
            after_rule = 0;
        }
        p = next_line(p, n);
    }
}

/* The first informative line of text but the app's started line. */
static int first_informative(const char *text, pick *k)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (informative(p, n) &&
            strncmp(p, BL_APP_STARTED, strlen(BL_APP_STARTED)) != 0) {
            k->line = p;
            k->n = n;
            k->named = NULL;
            return 1;
        }
        p = next_line(p, n);
    }
    return 0;
}

/* The app's first line that says what went wrong: its "started" line (the
 * ranks left MPI_Init) says nothing of that, should a launcher mix it in. */
static const char *app_line(const char *text)
{
    const char *p = text;
    while ((p = strstr(p, "bindlab-app:")) &&
           strncmp(p, BL_APP_STARTED, strlen(BL_APP_STARTED)) == 0)
        p += strlen(BL_APP_STARTED);
    return p;
}

static size_t trim_left(const char **s, size_t n)
{
    while (n > 0 && (**s == ' ' || **s == '\t')) {
        (*s)++;
        n--;
    }
    return n;
}

void bl_fail_reason(const char *head, const char *tail, char *buf, size_t len)
{
    pick k = {0};
    const char *app = NULL;
    if (!len)
        return;
    buf[0] = '\0';
    if (tail)
        app = app_line(tail);
    if (!app && head)
        app = app_line(head);
    if (app) {
        snprintf(buf, len, "%.*s", (int)strcspn(app, "\n"), app);
        return;
    }
    scan(head, &k);
    scan(tail, &k); /* the end, when the start did not hold all of it */
    if (!k.line && !first_informative(tail, &k) && !first_informative(head, &k))
        return;
    size_t used = (size_t)snprintf(buf, len, "%.*s", (int)k.n, k.line);
    if (k.named && used < len) {
        size_t m = trim_left(&k.named, k.named_n);
        snprintf(buf + used, len - used, " (%.*s)", (int)m, k.named);
    }
}
