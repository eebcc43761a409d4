/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-limits.c — bounds, parsing and raising of the limits a user sets. */
#define G_LOG_DOMAIN "rk-limits"
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-limits.h"

G_DEFINE_QUARK (rk-limits-error-quark, rk_limits_error)

#define MIB (G_GUINT64_CONSTANT (1) << 20)

G_DEFINE_ENUM_TYPE (RkSandboxLimit, rk_sandbox_limit,
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_NONE, "none"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_MEMORY, "memory"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_DISK, "disk"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_TIME, "time"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_CPU, "cpu"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_TIMEOUT, "timeout"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_FILES, "files"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_FILE_SIZE, "file-size"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_PROCESSES, "processes"),
  G_DEFINE_ENUM_VALUE (RK_SANDBOX_LIMIT_UNKNOWN, "unknown"))

RkSandboxLimit
rk_sandbox_limit_from_name (const char *name)
{
  g_autoptr(GEnumClass) klass = NULL;
  GEnumValue *value;

  if (name == NULL || *name == '\0')
    return RK_SANDBOX_LIMIT_NONE;
  /* What older kernels and the error view called the process limit. */
  if (g_str_equal (name, "procs"))
    return RK_SANDBOX_LIMIT_PROCESSES;
  klass = g_type_class_ref (RK_TYPE_SANDBOX_LIMIT);
  value = g_enum_get_value_by_nick (klass, name);
  if (value == NULL || value->value == RK_SANDBOX_LIMIT_NONE)
    return RK_SANDBOX_LIMIT_UNKNOWN;
  return (RkSandboxLimit) value->value;
}

const char *
rk_sandbox_limit_to_name (RkSandboxLimit limit)
{
  g_autoptr(GEnumClass) klass = NULL;
  GEnumValue *value;

  if (limit == RK_SANDBOX_LIMIT_NONE)
    return NULL;
  klass = g_type_class_ref (RK_TYPE_SANDBOX_LIMIT);
  value = g_enum_get_value (klass, limit);
  return value != NULL ? value->value_nick : "unknown";
}

RkSandboxLimit
rk_sandbox_limit_from_error (const char *error_name,
                             const char *detail)
{
  if (g_strcmp0 (error_name, "MemoryError") == 0)
    return RK_SANDBOX_LIMIT_MEMORY;
  if (g_strcmp0 (error_name, "CPUTimeLimitExceeded") == 0)
    return RK_SANDBOX_LIMIT_CPU;
  if (g_strcmp0 (error_name, "TimeLimitExceeded") == 0)
    return RK_SANDBOX_LIMIT_TIME;
  if (g_strcmp0 (error_name, "SandboxLimit") == 0)
    {
      RkSandboxLimit limit = rk_sandbox_limit_from_name (detail);

      return limit != RK_SANDBOX_LIMIT_NONE ? limit : RK_SANDBOX_LIMIT_UNKNOWN;
    }
  return RK_SANDBOX_LIMIT_NONE;
}

gboolean
rk_sandbox_limit_is_settable (RkSandboxLimit limit)
{
  return limit == RK_SANDBOX_LIMIT_MEMORY || limit == RK_SANDBOX_LIMIT_DISK || limit == RK_SANDBOX_LIMIT_TIME;
}

const char *
rk_sandbox_limit_settings_key (RkSandboxLimit limit)
{
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY: return "memory-limit";
    case RK_SANDBOX_LIMIT_DISK:   return "disk-limit";
    case RK_SANDBOX_LIMIT_TIME:   return "cell-time-limit";
    default:                      return NULL;
    }
}

const char *
rk_sandbox_limit_cli_option (RkSandboxLimit limit)
{
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY: return "--memory";
    case RK_SANDBOX_LIMIT_DISK:   return "--disk";
    case RK_SANDBOX_LIMIT_TIME:   return "--timeout";
    default:                      return NULL;
    }
}

guint64
rk_sandbox_limit_setting_value (RkSandboxLimit limit,
                                guint64        setting)
{
  if (limit == RK_SANDBOX_LIMIT_MEMORY || limit == RK_SANDBOX_LIMIT_DISK)
    return setting > (G_MAXUINT64 >> 20) ? G_MAXUINT64 : setting << 20;
  return setting;
}

static gboolean
counts_seconds (RkSandboxLimit limit)
{
  return limit == RK_SANDBOX_LIMIT_TIME || limit == RK_SANDBOX_LIMIT_CPU || limit == RK_SANDBOX_LIMIT_TIMEOUT;
}

char *
rk_sandbox_limit_format_value (RkSandboxLimit limit,
                               guint64        value)
{
  if (!counts_seconds (limit))
    return g_format_size_full (value, G_FORMAT_SIZE_IEC_UNITS);
  if (value >= 60 && value % 60 == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u minute", "%u minutes", (gulong) (value / 60)),
                            (guint) (value / 60));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u second", "%u seconds", (gulong) value), (guint) value);
}

char *
rk_sandbox_limit_describe (RkSandboxLimit limit)
{
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY:
      return g_strdup (_("The cell was stopped because it used more memory than the sandbox allows."));
    case RK_SANDBOX_LIMIT_CPU:
      return g_strdup (_("The cell was stopped because it used more CPU time than the sandbox allows."));
    case RK_SANDBOX_LIMIT_FILE_SIZE:
      return g_strdup (_("The cell was stopped because it wrote a file larger than the sandbox allows."));
    case RK_SANDBOX_LIMIT_DISK:
      return g_strdup (_("The cell was stopped because the workspace grew past its disk limit."));
    case RK_SANDBOX_LIMIT_FILES:
      return g_strdup (_("The cell was stopped because it created more files than the sandbox allows."));
    case RK_SANDBOX_LIMIT_TIME:
    case RK_SANDBOX_LIMIT_TIMEOUT:
      return g_strdup (_("The cell was stopped because the kernel ran past its time limit."));
    case RK_SANDBOX_LIMIT_PROCESSES:
      return g_strdup (_("The cell was stopped because it started more processes than the sandbox allows."));
    case RK_SANDBOX_LIMIT_NONE:
    case RK_SANDBOX_LIMIT_UNKNOWN:
    default:
      return g_strdup (_("The cell was stopped because it crossed one of the sandbox's limits."));
    }
}

void
rk_sandbox_limit_explain (RkSandboxLimit   limit,
                          guint64          value,
                          gboolean         raise_offered,
                          char           **what,
                          char           **todo)
{
  g_autofree char *shown = value > 0 ? rk_sandbox_limit_format_value (limit, value) : NULL;

  *what = NULL;
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY:
      /* TRANSLATORS: %s is a size, e.g. "2.0 GiB" */
      *what = shown ? g_strdup_printf (_("The cell used more memory than allowed (%s)."), shown)
                    : g_strdup (_("The cell used more memory than allowed."));
      *todo = g_strdup (raise_offered ? _("Or work on fewer rows or columns at a time.")
                                      : _("Work on fewer rows or columns at a time, or raise the memory limit in Preferences."));
      break;
    case RK_SANDBOX_LIMIT_TIME:
    case RK_SANDBOX_LIMIT_CPU:
    case RK_SANDBOX_LIMIT_TIMEOUT:
      *what = value > 0
        ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                        "The cell ran longer than allowed (%u second).",
                                        "The cell ran longer than allowed (%u seconds).", (gulong) value),
                           (guint) value)
        : g_strdup (_("The cell ran longer than allowed."));
      *todo = g_strdup (raise_offered ? _("Or ask for a simpler computation or a sample of the data.")
                                      : _("Ask for a simpler computation or a sample of the data, or raise the time limit in Preferences."));
      break;
    case RK_SANDBOX_LIMIT_DISK:
      /* TRANSLATORS: %s is a size, e.g. "1.0 GiB" */
      *what = shown ? g_strdup_printf (_("The cell filled the workspace past its disk space limit (%s)."), shown)
                    : g_strdup (_("The cell filled the workspace past its disk space limit."));
      *todo = g_strdup (_("Save what you need, then ask for smaller output files or delete some of them."));
      break;
    case RK_SANDBOX_LIMIT_FILES:
      *what = g_strdup (_("The cell created more files than the workspace allows."));
      *todo = g_strdup (_("Ask for fewer, larger files, for example one spreadsheet instead of one file per group."));
      break;
    case RK_SANDBOX_LIMIT_FILE_SIZE:
      *what = g_strdup (_("The cell tried to write a file larger than allowed."));
      *todo = g_strdup (_("Ask for a smaller output, for example a summary or a sample of the rows."));
      break;
    case RK_SANDBOX_LIMIT_PROCESSES:
      *what = g_strdup (_("The cell started more processes than allowed."));
      *todo = g_strdup (_("Ask for code that does not start many processes or threads."));
      break;
    case RK_SANDBOX_LIMIT_NONE:
    case RK_SANDBOX_LIMIT_UNKNOWN:
    default:
      *todo = g_strdup (_("The session’s variables may be lost; run the earlier steps again if needed."));
      break;
    }
}

gboolean
rk_sandbox_limit_propose_raise (RkSandboxLimit   limit,
                                guint64          current,
                                guint64         *raised,
                                char           **label)
{
  g_autofree char *value = NULL;

  if (!rk_sandbox_limit_is_settable (limit) || !rk_limits_raised (limit, current, raised))
    return FALSE;
  value = rk_sandbox_limit_format_value (limit, rk_sandbox_limit_setting_value (limit, *raised));
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY:
      /* TRANSLATORS: %s is a size, e.g. "4.0 GiB" */
      *label = g_strdup_printf (_("Raise the memory limit to %s and run again"), value);
      break;
    case RK_SANDBOX_LIMIT_DISK:
      /* TRANSLATORS: %s is a size, e.g. "2.0 GiB" */
      *label = g_strdup_printf (_("Raise the disk limit to %s and run again"), value);
      break;
    case RK_SANDBOX_LIMIT_TIME:
    default:
      /* TRANSLATORS: %s is a duration, e.g. "4 minutes" */
      *label = g_strdup_printf (_("Raise the time limit to %s and run again"), value);
      break;
    }
  return TRUE;
}

char *
rk_sandbox_limit_cli_sentence (RkSandboxLimit limit,
                               guint64        current)
{
  g_autofree char *shown = NULL;
  g_autofree char *flag_value = NULL;
  const char *name = rk_sandbox_limit_to_name (limit);
  guint64 raised;

  if (!rk_sandbox_limit_is_settable (limit))
    return NULL;
  /* The value it stopped at as the user gave it: seconds stay seconds. */
  if (limit == RK_SANDBOX_LIMIT_TIME)
    shown = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u second", "%u seconds", (gulong) current),
                             (guint) current);
  else
    shown = rk_sandbox_limit_format_value (limit, rk_sandbox_limit_setting_value (limit, current));
  if (!rk_limits_raised (limit, current, &raised))
    /* TRANSLATORS: e.g. "the cell reached the sandbox's “memory” limit (64 GiB), the most it can be." */
    return g_strdup_printf (_("the cell reached the sandbox's “%s” limit (%s), the most it can be."), name, shown);
  flag_value = limit == RK_SANDBOX_LIMIT_TIME ? g_strdup_printf ("%" G_GUINT64_FORMAT, raised)
                                              : rk_limits_format_flag_size (raised << 20);
  /* TRANSLATORS: e.g. "the cell reached the sandbox's “memory” limit (2 GiB); run again with --memory 4G to raise it." */
  return g_strdup_printf (_("the cell reached the sandbox's “%s” limit (%s); run again with %s %s to raise it."),
                          name, shown, rk_sandbox_limit_cli_option (limit), flag_value);
}

static void
bounds_mib (RkSandboxLimit  kind,
            guint64     *min,
            guint64     *max)
{
  if (kind == RK_SANDBOX_LIMIT_MEMORY)
    {
      *min = RK_LIMITS_MEMORY_MIN_MIB;
      *max = RK_LIMITS_MEMORY_MAX_MIB;
    }
  else
    {
      *min = RK_LIMITS_DISK_MIN_MIB;
      *max = RK_LIMITS_DISK_MAX_MIB;
    }
}

/* "12", then at most one unit letter, then "", "B" or "iB". */
static gboolean
scan_size (const char *text,
           guint64    *bytes)
{
  const char *p = text;
  guint64 value = 0;
  guint shift = 0;

  if (text == NULL || !g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      if (value > (G_MAXUINT64 - 9) / 10)
        return FALSE;
      value = value * 10 + (guint64) (*p - '0');
    }
  switch (g_ascii_toupper (*p))
    {
    case 'K': shift = 10; p++; break;
    case 'M': shift = 20; p++; break;
    case 'G': shift = 30; p++; break;
    case 'T': shift = 40; p++; break;
    default: break;
    }
  if (shift > 0 && (g_ascii_strcasecmp (p, "iB") == 0 || g_ascii_strcasecmp (p, "B") == 0))
    p += strlen (p);
  if (*p != '\0')
    return FALSE;
  if (shift > 0 && value > (G_MAXUINT64 >> shift))
    return FALSE;
  *bytes = value << shift;
  return TRUE;
}

gboolean
rk_limits_parse_size (RkSandboxLimit kind,
                      const char   *option,
                      const char   *text,
                      guint64      *bytes,
                      GError      **error)
{
  guint64 min, max, value = 0;
  g_autofree char *low = NULL;
  g_autofree char *high = NULL;

  g_return_val_if_fail (kind == RK_SANDBOX_LIMIT_MEMORY || kind == RK_SANDBOX_LIMIT_DISK, FALSE);
  g_return_val_if_fail (option != NULL, FALSE);

  bounds_mib (kind, &min, &max);
  low = rk_limits_format_flag_size (min * MIB);
  high = rk_limits_format_flag_size (max * MIB);
  if (!scan_size (text, &value))
    {
      g_autofree char *shown = g_strescape (text ? text : "", NULL);

      /* TRANSLATORS: e.g. "--memory takes a size such as 512M or 4G, not “lots”." */
      g_set_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_INVALID,
                   _("%s takes a size such as 512M or 4G, not “%s”."), option, shown);
      return FALSE;
    }
  if (value < min * MIB || value > max * MIB)
    {
      /* TRANSLATORS: e.g. "--memory must be between 256M and 64G." */
      g_set_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_RANGE,
                   _("%s must be between %s and %s."), option, low, high);
      return FALSE;
    }
  *bytes = value;
  return TRUE;
}

gboolean
rk_limits_parse_seconds (const char  *option,
                         const char  *text,
                         guint64     *seconds,
                         GError     **error)
{
  guint64 value = 0;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &value, NULL))
    {
      g_autofree char *shown = g_strescape (text ? text : "", NULL);

      /* TRANSLATORS: e.g. "--timeout takes a whole number of seconds, not “soon”." */
      g_set_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_INVALID,
                   _("%s takes a whole number of seconds, not “%s”."), option, shown);
      return FALSE;
    }
  if (value < 1 || value > RK_LIMITS_TIME_MAX_S)
    {
      /* TRANSLATORS: e.g. "--timeout must be between 1 and 86400 seconds." */
      g_set_error (error, RK_LIMITS_ERROR, RK_LIMITS_ERROR_RANGE,
                   _("%s must be between %u and %u seconds."), option, 1u, (guint) RK_LIMITS_TIME_MAX_S);
      return FALSE;
    }
  *seconds = value;
  return TRUE;
}

char *
rk_limits_format_flag_size (guint64 bytes)
{
  if (bytes >= (G_GUINT64_CONSTANT (1) << 30) && bytes % (G_GUINT64_CONSTANT (1) << 30) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "G", bytes >> 30);
  if (bytes % MIB == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "M", bytes >> 20);
  if (bytes % 1024 == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "K", bytes >> 10);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, bytes);
}

guint64
rk_limits_machine_memory (void)
{
  long pages = sysconf (_SC_PHYS_PAGES);
  long page_size = sysconf (_SC_PAGESIZE);

  if (pages <= 0 || page_size <= 0)
    return 0;
  return (guint64) pages * (guint64) page_size;
}

gboolean
rk_limits_raised (RkSandboxLimit kind,
                  guint64      current,
                  guint64     *raised)
{
  guint64 min, max, value;

  if (kind == RK_SANDBOX_LIMIT_TIME)
    {
      min = 1;   /* reckon-cli --timeout may be shorter than Preferences allow */
      max = RK_LIMITS_TIME_MAX_S;
    }
  else
    {
      guint64 ram_mib = rk_limits_machine_memory () / MIB;

      bounds_mib (kind, &min, &max);
      /* Beyond the RAM a limit cannot be used: the workspace of a capped
       * sandbox is memory too. */
      if (ram_mib >= min && ram_mib < max)
        max = ram_mib;
    }
  value = MAX (current, min);
  value = value > max / 2 ? max : value * 2;
  if (value <= current)
    return FALSE;
  *raised = value;
  return TRUE;
}

static void
note_file (RkWorkspaceUsage *usage,
           const char       *path,
           guint64           size)
{
  guint i;

  usage->total += size;
  for (i = 0; i < G_N_ELEMENTS (usage->largest); i++)
    if (usage->largest[i] == NULL || size > usage->largest_size[i])
      break;
  if (i == G_N_ELEMENTS (usage->largest))
    return;
  g_free (usage->largest[G_N_ELEMENTS (usage->largest) - 1]);
  for (guint k = G_N_ELEMENTS (usage->largest) - 1; k > i; k--)
    {
      usage->largest[k] = usage->largest[k - 1];
      usage->largest_size[k] = usage->largest_size[k - 1];
    }
  usage->largest[i] = g_strdup (path);
  usage->largest_size[i] = size;
}

/* Depth first through directory fds, never following a link. */
static void
walk (int                 dir_fd,
      const char         *prefix,
      const char * const *inputs,
      guint              *budget,
      guint               depth,
      RkWorkspaceUsage   *usage)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *d;

  if (dir == NULL)
    {
      close (dir_fd);
      return;
    }
  while ((d = readdir (dir)) != NULL)
    {
      struct stat st;
      g_autofree char *path = NULL;

      if (g_str_equal (d->d_name, ".") || g_str_equal (d->d_name, ".."))
        continue;
      if (*budget == 0)
        {
          usage->partial = TRUE;
          break;
        }
      (*budget)--;
      if (fstatat (dirfd (dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      path = *prefix != '\0' ? g_build_filename (prefix, d->d_name, NULL) : g_strdup (d->d_name);
      if (S_ISREG (st.st_mode) && depth == 0 && inputs != NULL && g_strv_contains (inputs, d->d_name))
        continue;
      if (S_ISREG (st.st_mode))
        note_file (usage, path, (guint64) st.st_size);
      else if (S_ISDIR (st.st_mode) && depth < 64)
        {
          int fd = openat (dirfd (dir), d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

          if (fd >= 0)
            walk (fd, path, NULL, budget, depth + 1, usage);
        }
    }
  closedir (dir);
}

void
rk_workspace_usage_measure (RkWorkspace        *workspace,
                            const char * const *inputs,
                            guint               max_entries,
                            RkWorkspaceUsage   *usage)
{
  int fd;

  g_return_if_fail (RK_IS_WORKSPACE (workspace));
  g_return_if_fail (usage != NULL);

  memset (usage, 0, sizeof *usage);
  fd = rk_workspace_dup_fd (workspace, NULL);
  if (fd >= 0)
    walk (fd, "", inputs, &max_entries, 0, usage);
}

void
rk_workspace_usage_clear (RkWorkspaceUsage *usage)
{
  for (guint i = 0; i < G_N_ELEMENTS (usage->largest); i++)
    g_clear_pointer (&usage->largest[i], g_free);
}

guint64
rk_workspace_usage_suggested_disk (const RkWorkspaceUsage *usage)
{
  guint64 gib = G_GUINT64_CONSTANT (1) << 30;
  guint64 wanted = usage->total + usage->total / 4;
  guint64 max = (guint64) RK_LIMITS_DISK_MAX_MIB * MIB;

  wanted = (wanted + gib - 1) / gib * gib;
  wanted = MAX (wanted, (guint64) RK_LIMITS_DISK_MIN_MIB * MIB);
  return wanted <= max ? wanted : 0;
}

char *
rk_workspace_usage_over_disk_message (const RkWorkspaceUsage *usage,
                                      guint64                 disk_limit)
{
  g_autofree char *limit = g_format_size_full (disk_limit, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *total = g_format_size_full (usage->total, G_FORMAT_SIZE_IEC_UNITS);
  g_autoptr(GString) largest = g_string_new (NULL);
  guint64 suggested = rk_workspace_usage_suggested_disk (usage);
  g_autofree char *raise = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (usage->largest) && usage->largest[i] != NULL; i++)
    {
      /* Only the files that matter: a cache of a few KiB does not. */
      if (i > 0 && usage->largest_size[i] < usage->total / 20)
        break;
      g_autofree char *name = g_filename_display_name (usage->largest[i]);
      g_autofree char *size = g_format_size_full (usage->largest_size[i], G_FORMAT_SIZE_IEC_UNITS);

      if (largest->len > 0)
        /* TRANSLATORS: between the files of a list such as “a.csv” (1.1 GiB), “b.csv” (200 MiB) */
        g_string_append (largest, _(", "));
      /* TRANSLATORS: a file and its size, e.g. “sales.csv” (1.1 GiB) */
      g_string_append_printf (largest, _("“%s” (%s)"), name, size);
    }
  if (suggested > 0)
    {
      g_autofree char *to = g_format_size_full (suggested, G_FORMAT_SIZE_IEC_UNITS);

      /* TRANSLATORS: the end of a sentence, e.g. "raise the disk limit to 2.0 GiB" */
      raise = g_strdup_printf (_("raise the disk limit to %s"), to);
    }
  else
    raise = g_strdup (_("delete some of them"));

  if (largest->len == 0 || usage->total <= disk_limit)
    /* TRANSLATORS: %s: the disk limit, e.g. "1.0 GiB" */
    return g_strdup_printf (_("The Python kernel cannot start because the workspace is over its disk limit of %s; "
                              "raise the disk limit or delete some files."), limit);
  /* TRANSLATORS: e.g. "The Python kernel cannot start because the files in its workspace take 1.2 GiB,
   * more than its disk limit of 1.0 GiB, mostly “big.csv” (1.1 GiB); to start it, raise the disk limit to 2.0 GiB." */
  return g_strdup_printf (_("The Python kernel cannot start because the files in its workspace take %s, more than "
                            "its disk limit of %s, mostly %s; to start it, %s."),
                          total, limit, largest->str, raise);
}
