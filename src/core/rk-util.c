/* rk-util.c — locations of the sandbox parts and small shared checks. */
#define G_LOG_DOMAIN "rk-util"
#include "config.h"
#include "rk-util.h"

#include <string.h>

G_DEFINE_QUARK (rk-parse-error-quark, rk_parse_error)

static const char *
env_or (const char *name,
        const char *fallback)
{
  const char *value = g_getenv (name);

  return (value != NULL && *value != '\0') ? value : fallback;
}

const char *
rk_sandbox_path (void)
{
  return env_or ("RECKON_SANDBOX", RK_SANDBOX_PATH);
}

const char *
rk_kernel_dir (void)
{
  return env_or ("RECKON_KERNEL_DIR", RK_KERNEL_DIR);
}

const char *
rk_python_path (void)
{
  return env_or ("RECKON_PYTHON", RK_PYTHON);
}

gboolean
rk_path_is_beneath (const char *rel)
{
  const char *p;

  if (rel == NULL || *rel == '\0' || *rel == '/')
    return FALSE;
  if (strlen (rel) > 4096)
    return FALSE;

  p = rel;
  while (*p != '\0')
    {
      const char *slash = strchr (p, '/');
      gsize len = slash ? (gsize) (slash - p) : strlen (p);

      if (len == 0)
        return FALSE;
      if (len == 2 && p[0] == '.' && p[1] == '.')
        return FALSE;
      if (len == 1 && p[0] == '.')
        return FALSE;
      if (slash == NULL)
        break;
      p = slash + 1;
      if (*p == '\0')
        return FALSE;
    }

  return TRUE;
}
