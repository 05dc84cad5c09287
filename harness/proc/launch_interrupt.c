/* The harness's SIGINT/SIGTERM handler (launch.h): one for every verb that
 * waits for launches (bindlab sweep, bindlab run), so that Ctrl-C or a
 * batch system's SIGTERM ends the run in flight the same way everywhere. */
#include "proc/launch.h"

#include <string.h>

/* The first signal caught, for the verb's exit status and its record. */
static volatile sig_atomic_t g_caught;

static void on_interrupt(int sig)
{
    if (!g_caught)
        g_caught = sig;
    bl_launch_interrupt();
}

void bl_launch_catch_interrupts(struct sigaction *old_int,
                                struct sigaction *old_term)
{
    struct sigaction sa;
    g_caught = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

void bl_launch_restore_interrupts(const struct sigaction *old_int,
                                  const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

int bl_launch_caught_signal(void) { return (int)g_caught; }
