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

gboolean
rk_json_scan_ok (const char      *text,
                 gsize            len,
                 guint            max_depth,
                 RkJsonScanFlags  flags)
{
  gboolean in_string = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (c == '\\')
            {
              if ((flags & RK_JSON_SCAN_NO_ESCAPED_NUL) && i + 5 < len && text[i + 1] == 'u'
                  && memcmp (text + i + 2, "0000", 4) == 0)
                return FALSE;
              i++;
            }
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        {
          if (++depth > max_depth)
            return FALSE;
        }
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
    }
  return TRUE;
}
