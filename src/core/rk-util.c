/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-util.c — locations of the sandbox parts and small shared checks. */
#define G_LOG_DOMAIN "rk-util"
#include "config.h"
#include "rk-util.h"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (rk-parse-error-quark, rk_parse_error)

static const char *
env_or (const char *name,
        const char *fallback)
{
  const char *value = g_getenv (name);

  return (value != NULL && *value != '\0') ? value : fallback;
}

/* Where each part is looked for when no RECKON_* variable names it: the
 * build tree first when the running program was built there (a build-tree
 * run needs no set-up), then the installed place. */
typedef struct
{
  char *build_root;        /* NULL when not running from the build tree */
  char *build_sandbox;
  char *build_kernel_dir;
} RkBuildTree;

static gboolean
path_is_beneath_dir (const char *path,
                     const char *dir)
{
  gsize len = strlen (dir);

  return len > 0 && strncmp (path, dir, len) == 0 && (path[len] == '/' || dir[len - 1] == '/');
}

static gpointer
find_build_tree (gpointer data)
{
  RkBuildTree *tree = g_new0 (RkBuildTree, 1);
#if defined(RK_BUILD_ROOT) && defined(RK_SOURCE_ROOT)
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *build_root = realpath (RK_BUILD_ROOT, NULL);

  if (exe != NULL && build_root != NULL && path_is_beneath_dir (exe, build_root))
    {
      tree->build_root = g_strdup (RK_BUILD_ROOT);
      tree->build_sandbox = g_build_filename (RK_BUILD_ROOT, "sandbox", "reckon-sandbox", NULL);
      tree->build_kernel_dir = g_build_filename (RK_SOURCE_ROOT, "sandbox", "kernel", NULL);
    }
#endif
  return tree;
}

static const RkBuildTree *
build_tree (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, find_build_tree, NULL);
}

/* The places a part is looked for, in order (at most two). */
static guint
candidates (const char  *env_name,
            const char  *build_path,
            const char  *installed,
            const char **out)
{
  const char *value = g_getenv (env_name);
  guint n = 0;

  if (value != NULL && *value != '\0')
    {
      /* An override is the only place looked: tests rely on it. */
      out[n++] = value;
      return n;
    }
  if (build_path != NULL)
    out[n++] = build_path;
  out[n++] = installed;
  return n;
}

static const char *
first_present (const char  *env_name,
               const char  *build_path,
               const char  *installed,
               GFileTest    test)
{
  const char *places[2];
  guint n = candidates (env_name, build_path, installed, places);

  for (guint i = 0; i < n; i++)
    if (g_file_test (places[i], test))
      return places[i];
  return places[0];
}

const char *
rk_build_root (void)
{
  return build_tree ()->build_root;
}

const char *
rk_sandbox_path (void)
{
  return first_present ("RECKON_SANDBOX", build_tree ()->build_sandbox, RK_SANDBOX_PATH,
                        G_FILE_TEST_IS_EXECUTABLE);
}

const char *
rk_kernel_dir (void)
{
  return first_present ("RECKON_KERNEL_DIR", build_tree ()->build_kernel_dir, RK_KERNEL_DIR,
                        G_FILE_TEST_IS_DIR);
}

/* "A, B" listing of every place a part was looked for. */
static char *
join_places (const char *env_name,
             const char *build_path,
             const char *installed,
             const char *suffix)
{
  const char *places[2];
  guint n = candidates (env_name, build_path, installed, places);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = suffix ? g_build_filename (places[i], suffix, NULL) : g_strdup (places[i]);

      if (i > 0)
        g_string_append (s, ", ");
      g_string_append (s, path);
    }
  return g_string_free (s, FALSE);
}

gboolean
rk_check_sandbox_parts (GError **error)
{
  const RkBuildTree *tree = build_tree ();
  g_autofree char *script = g_build_filename (rk_kernel_dir (), "reckon_kernel.py", NULL);
  gboolean have_sandbox = g_file_test (rk_sandbox_path (), G_FILE_TEST_IS_EXECUTABLE);
  gboolean have_kernel = g_file_test (script, G_FILE_TEST_IS_REGULAR);
  g_autofree char *sandbox_places = NULL;
  g_autofree char *kernel_places = NULL;

  if (have_sandbox && have_kernel)
    return TRUE;

  sandbox_places = join_places ("RECKON_SANDBOX", tree->build_sandbox, RK_SANDBOX_PATH, NULL);
  kernel_places = join_places ("RECKON_KERNEL_DIR", tree->build_kernel_dir, RK_KERNEL_DIR,
                               "reckon_kernel.py");
  if (!have_sandbox && !have_kernel)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("Reckon cannot find its sandbox program reckon-sandbox (looked for %s) "
                   "nor its Python kernel (looked for %s); reinstall Reckon or build it again."),
                 sandbox_places, kernel_places);
  else if (!have_sandbox)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("Reckon cannot find its sandbox program reckon-sandbox (looked for %s); "
                   "reinstall Reckon or build it again."),
                 sandbox_places);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("Reckon cannot find its Python kernel (looked for %s); "
                   "reinstall Reckon or build it again."),
                 kernel_places);
  return FALSE;
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

const char *
rk_enum_to_nick (GType       type,
                 int         value,
                 const char *fallback)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *member = g_enum_get_value (klass, value);

  /* The nicks are static data of the type, which is never unloaded. */
  return member != NULL ? member->value_nick : fallback;
}

int
rk_enum_from_nick (GType       type,
                   const char *nick,
                   int         fallback)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *member = nick != NULL ? g_enum_get_value_by_nick (klass, nick) : NULL;

  return member != NULL ? member->value : fallback;
}
