/* bindlab-app: placeholder entry point, replaced by the real CLI. */
#include <stdio.h>
const char *bl_app_version(void);
int main(void)
{
    printf("bindlab-app %s\n", bl_app_version());
    return 0;
}
