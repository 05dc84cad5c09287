/* A statically linked program (test_probe.sh): LD_PRELOAD cannot reach it,
 * so the probe writes no file. */
#include <stdio.h>

int main(void)
{
    puts("static_hello");
    return 0;
}
