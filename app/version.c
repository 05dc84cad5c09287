/* The version string, kept in its own file so that bl_app always has a
 * source even while the rest of app/ is being written. */
const char *bl_app_version(void)
{
    return BINDLAB_VERSION;
}
