/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table.c — reader of the RkTable format (docs/rktable-format.md). The
 * bytes come from the sandbox: every offset is checked before it is used. */
#define G_LOG_DOMAIN "rk-table"
#include "config.h"
#define _GNU_SOURCE

#include "rk-table.h"
#include "rk-table-private.h"
#include "rk-util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#define HEADER_SIZE 64
#define ENTRY_SIZE  64
#define FLAG_OFFSETS32 1
#define FLAG_DATE_ONLY 2
/* A table without columns still has a row count; keep it small. */
#define MAX_ROWS_NO_COLUMNS (1u << 24)

static const guint8 magic[8] = { 'R', 'K', 'T', 'A', 'B', 'L', 'E', 0 };

enum
{
  COLUMN_UNCHECKED,
  COLUMN_OK,        /* O(1) checks passed */
  COLUMN_CHECKED,   /* every offset checked */
  COLUMN_BAD,
};

typedef struct
{
  char              *name;
  RkTableColumnType  type;
  guint8             flags;
  guint64            null_off, null_len;
  guint64            data_off, data_len;
  guint64            aux_off, aux_len;
  char              *tz_name;
  GTimeZone         *tz;
  int                state;      /* atomic; COLUMN_* */
  char              *error;      /* why the column is bad */
  gboolean           date_only;  /* naive datetime column of midnights (writer's flag) */
} Column;

struct _RkTable
{
  GObject       parent_instance;

  GBytes       *bytes;
  const guint8 *data;
  guint64       size;

  guint         n_rows;
  guint         n_columns;
  guint         n_index;
  Column       *columns;

  GMutex        lock;       /* column validation */
  GBytes       *perm;       /* guint32[n_rows], NULL for the file order */
  int           sort_column;
  gboolean      sort_ascending;
};

static void rk_table_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RkTable, rk_table, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      rk_table_list_model_init))

/* ---------------------------------------------------------------- bytes */

static inline guint64
read_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static inline guint32
read_u32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static inline guint16
read_u16 (const guint8 *p)
{
  guint16 v;

  memcpy (&v, p, 2);
  return GUINT16_FROM_LE (v);
}

static inline gboolean
in_range (guint64 offset,
          guint64 length,
          guint64 size)
{
  return offset <= size && length <= size - offset;
}

/* ------------------------------------------------------------- open */

static void
column_clear (Column *c)
{
  g_clear_pointer (&c->name, g_free);
  g_clear_pointer (&c->tz_name, g_free);
  g_clear_pointer (&c->tz, g_time_zone_unref);
  g_clear_pointer (&c->error, g_free);
}

static void
rk_table_finalize (GObject *object)
{
  RkTable *self = RK_TABLE (object);

  for (guint i = 0; i < self->n_columns && self->columns; i++)
    column_clear (&self->columns[i]);
  g_clear_pointer (&self->columns, g_free);
  g_clear_pointer (&self->perm, g_bytes_unref);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (rk_table_parent_class)->finalize (object);
}

static void
rk_table_class_init (RkTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = rk_table_finalize;
}

static void
rk_table_init (RkTable *self)
{
  g_mutex_init (&self->lock);
  self->sort_column = -1;
  self->sort_ascending = TRUE;
}

/* Valid UTF-8 copy of @len bytes; invalid bytes and NULs become U+FFFD. */
static void
append_valid_utf8 (GString    *out,
                   const char *p,
                   gsize       len)
{
  while (len > 0)
    {
      const char *end;
      gsize good;

      if (g_utf8_validate_len (p, len, &end))
        {
          g_string_append_len (out, p, len);
          return;
        }
      good = end - p;
      g_string_append_len (out, p, good);
      g_string_append (out, "\xEF\xBF\xBD");
      p += good + 1;
      len -= good + 1;
    }
}

static gboolean
tz_name_ok (const char *name,
            gsize       len)
{
  if (len == 0 || name[0] == '/' || g_strstr_len (name, len, "..") != NULL)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char ch = name[i];

      if (!g_ascii_isalnum (ch) && ch != '/' && ch != '_' && ch != '+' && ch != '-' && ch != ':')
        return FALSE;
    }
  return TRUE;
}

static gboolean
fail (GError   **error,
      int        code,
      const char *message)
{
  g_set_error_literal (error, RK_PARSE_ERROR, code, message);
  return FALSE;
}

typedef struct
{
  guint64 start;
  guint64 end;
} Span;

static int
span_compare (const void *a,
              const void *b)
{
  const Span *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* The header and directory: O(columns), done at open. Column contents (string
 * offsets) are checked lazily in column_check_ends() and column_check_all(). */
static gboolean
parse_header (RkTable  *self,
              GError  **error)
{
  const guint8 *d = self->data;
  guint64 size = self->size;
  guint64 n_rows, dir_off, dir_len, file_len;
  guint32 version, flags, n_cols, n_index;
  guint64 dir_end;
  g_autofree Span *spans = NULL;
  gsize n_spans = 0;
  g_autoptr(GHashTable) zones = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_time_zone_unref);

  if (size < HEADER_SIZE)
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The table file is truncated."));
  if (memcmp (d, magic, 8) != 0)
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The file is not a Reckon table."));
  version = read_u32 (d + 8);
  flags = read_u32 (d + 12);
  if (version != 1)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED,
                 _("The table file has a format version this Reckon cannot read."));
  if (flags != 0 || read_u64 (d + 56) != 0)
    return fail (error, RK_PARSE_ERROR_UNSUPPORTED,
                 _("The table file uses features this Reckon cannot read."));

  n_rows = read_u64 (d + 16);
  n_cols = read_u32 (d + 24);
  n_index = read_u32 (d + 28);
  dir_off = read_u64 (d + 32);
  dir_len = read_u64 (d + 40);
  file_len = read_u64 (d + 48);

  if (file_len != size)
    return fail (error, RK_PARSE_ERROR_MALFORMED,
                 _("The table file is truncated or has extra bytes."));
  if (size > RK_TABLE_MAX_FILE_SIZE)
    return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The table file is too large."));
  if (n_cols > RK_TABLE_MAX_COLUMNS)
    return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The table has too many columns."));
  if (n_rows > G_MAXUINT32 || n_rows > G_MAXUINT ||
      (n_cols == 0 && n_rows > MAX_ROWS_NO_COLUMNS))
    return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("The table has too many rows."));
  if (n_index > n_cols)
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The table's index columns are inconsistent."));
  if (dir_off != HEADER_SIZE || dir_len != (guint64) n_cols * ENTRY_SIZE ||
      !in_range (dir_off, dir_len, size))
    return fail (error, RK_PARSE_ERROR_MALFORMED, _("The table's column directory is out of bounds."));

  dir_end = dir_off + dir_len;
  self->n_rows = (guint) n_rows;
  self->n_columns = n_cols;
  self->n_index = n_index;
  self->columns = g_new0 (Column, MAX (n_cols, 1));
  spans = g_new (Span, (gsize) n_cols * 3 + 1);

  for (guint i = 0; i < n_cols; i++)
    {
      const guint8 *e = d + dir_off + (guint64) i * ENTRY_SIZE;
      Column *c = &self->columns[i];
      guint64 name_off = read_u64 (e);
      guint32 name_len = read_u32 (e + 8);
      guint8 type = e[12];
      guint64 width, expect;
      GString *name;

      c->flags = e[13];
      c->null_off = read_u64 (e + 16);
      c->null_len = read_u64 (e + 24);
      c->data_off = read_u64 (e + 32);
      c->data_len = read_u64 (e + 40);
      c->aux_off = read_u64 (e + 48);
      c->aux_len = read_u64 (e + 56);

      if (name_len > RK_TABLE_MAX_NAME)
        return fail (error, RK_PARSE_ERROR_TOO_LARGE, _("A column name in the table is too long."));
      if (!in_range (name_off, name_len, size) || (name_len > 0 && name_off < dir_end))
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("A column name in the table is out of bounds."));
      name = g_string_sized_new (name_len + 1);
      append_valid_utf8 (name, (const char *) d + name_off, name_len);
      c->name = g_string_free (name, FALSE);

      if (type < RK_TABLE_COLUMN_INT64 || type > RK_TABLE_COLUMN_STRING)
        return fail (error, RK_PARSE_ERROR_UNSUPPORTED, _("A column of the table has an unknown type."));
      c->type = type;
      if (read_u16 (e + 14) != 0 ||
          (c->flags & ~(type == RK_TABLE_COLUMN_STRING ? FLAG_OFFSETS32 :
                        type == RK_TABLE_COLUMN_DATETIME ? FLAG_DATE_ONLY : 0)) != 0)
        return fail (error, RK_PARSE_ERROR_UNSUPPORTED, _("A column of the table uses features this Reckon cannot read."));

      /* Validity bitmap. */
      if (c->null_off == 0 && c->null_len == 0)
        ;
      else if (c->null_len != (n_rows + 7) / 8 || c->null_off % 8 != 0 ||
               !in_range (c->null_off, c->null_len, size) || c->null_off < dir_end)
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("A column's null bitmap in the table is out of bounds."));

      /* Values. */
      switch (c->type)
        {
        case RK_TABLE_COLUMN_BOOL:
          width = 1;
          break;
        case RK_TABLE_COLUMN_STRING:
          width = (c->flags & FLAG_OFFSETS32) ? 4 : 8;
          break;
        case RK_TABLE_COLUMN_INT64:
        case RK_TABLE_COLUMN_FLOAT64:
        case RK_TABLE_COLUMN_DATETIME:
        default:
          width = 8;
          break;
        }
      /* n_rows < 2^32, width <= 8: no overflow. */
      expect = (n_rows + (c->type == RK_TABLE_COLUMN_STRING ? 1 : 0)) * width;
      if (c->data_len != expect || c->data_off % 8 != 0 ||
          !in_range (c->data_off, c->data_len, size) || c->data_off < dir_end)
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("A column's data in the table is out of bounds."));

      /* Heap or time zone. */
      if (c->aux_off == 0 && c->aux_len == 0)
        ;
      else if (!in_range (c->aux_off, c->aux_len, size) || c->aux_off < dir_end ||
               (c->type != RK_TABLE_COLUMN_STRING && c->type != RK_TABLE_COLUMN_DATETIME))
        return fail (error, RK_PARSE_ERROR_MALFORMED, _("A column's extra data in the table is out of bounds."));

      if (c->type == RK_TABLE_COLUMN_DATETIME && c->aux_len > 0)
        {
          const char *tz = (const char *) d + c->aux_off;

          if (c->aux_len > RK_TABLE_MAX_TZ_NAME || !tz_name_ok (tz, c->aux_len))
            return fail (error, RK_PARSE_ERROR_MALFORMED, _("A column of the table names an invalid time zone."));
          c->tz_name = g_strndup (tz, c->aux_len);
          /* Each zone is loaded once, however many columns name it. */
          c->tz = g_hash_table_lookup (zones, c->tz_name);
          if (c->tz != NULL)
            g_time_zone_ref (c->tz);
          else
            {
              c->tz = g_time_zone_new_identifier (c->tz_name);
              if (c->tz == NULL)
                c->tz = g_time_zone_new_utc ();
              g_hash_table_insert (zones, g_strdup (c->tz_name), g_time_zone_ref (c->tz));
            }
        }

      c->date_only = (c->flags & FLAG_DATE_ONLY) && c->tz == NULL;

      if (c->null_len > 0)
        spans[n_spans++] = (Span) { c->null_off, c->null_off + c->null_len };
      if (c->data_len > 0)
        spans[n_spans++] = (Span) { c->data_off, c->data_off + c->data_len };
      if (c->aux_len > 0)
        spans[n_spans++] = (Span) { c->aux_off, c->aux_off + c->aux_len };
    }

  /* No two blocks may share bytes. */
  qsort (spans, n_spans, sizeof (Span), span_compare);
  for (gsize i = 1; i < n_spans; i++)
    if (spans[i].start < spans[i - 1].end)
      return fail (error, RK_PARSE_ERROR_MALFORMED, _("Columns of the table overlap."));

  return TRUE;
}

RkTable *
rk_table_new_from_bytes (GBytes  *bytes,
                         GError **error)
{
  g_autoptr(RkTable) self = NULL;
  gsize size;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (RK_TYPE_TABLE, NULL);
  self->bytes = g_bytes_ref (bytes);
  self->data = g_bytes_get_data (bytes, &size);
  self->size = size;
  if (!parse_header (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* The file is mapped directly, so opening a million rows costs nothing. But
 * the sandbox may still hold it open and truncate it, and reading a page past
 * the new end raises SIGBUS. As systemd's journal reader does, a SIGBUS inside
 * one of our mappings is answered by mapping a zero page over the faulting
 * page: the table then reads zeros there, which every check copes with (all
 * offsets are re-checked at use), instead of the process dying. Faults
 * elsewhere go to the previous handler. */
#define MAX_GUARDED 1024

typedef struct
{
  gsize start;   /* 0: free; written last when taken, first when freed */
  gsize end;
} GuardSlot;

static GuardSlot guard_slots[MAX_GUARDED];
static GMutex guard_lock;
static struct sigaction previous_sigbus;
static gsize guard_page_size;
static int sigbus_hits;

static void
sigbus_handler (int        sig,
                siginfo_t *info,
                void      *context)
{
  gsize addr = (gsize) info->si_addr;

  for (guint i = 0; i < MAX_GUARDED; i++)
    {
      gsize start = __atomic_load_n (&guard_slots[i].start, __ATOMIC_ACQUIRE);
      gsize end = __atomic_load_n (&guard_slots[i].end, __ATOMIC_ACQUIRE);

      if (start != 0 && addr >= start && addr < end)
        {
          void *page = (void *) (addr & ~(guard_page_size - 1));

          if (mmap (page, guard_page_size, PROT_READ,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
            {
              __atomic_add_fetch (&sigbus_hits, 1, __ATOMIC_RELAXED);
              return;
            }
          break;
        }
    }

  if ((previous_sigbus.sa_flags & SA_SIGINFO) && previous_sigbus.sa_sigaction != NULL)
    previous_sigbus.sa_sigaction (sig, info, context);
  else if (previous_sigbus.sa_handler != SIG_DFL && previous_sigbus.sa_handler != SIG_IGN)
    previous_sigbus.sa_handler (sig);
  else
    {
      /* Back to the default action: the fault repeats and ends the process. */
      struct sigaction dfl = { 0, };
      dfl.sa_handler = SIG_DFL;
      sigaction (SIGBUS, &dfl, NULL);
    }
}

static gpointer
install_guard (gpointer data)
{
  struct sigaction sa = { 0, };

  guard_page_size = (gsize) sysconf (_SC_PAGESIZE);
  sa.sa_sigaction = sigbus_handler;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset (&sa.sa_mask);
  if (sigaction (SIGBUS, &sa, &previous_sigbus) < 0)
    return GINT_TO_POINTER (FALSE);
  return GINT_TO_POINTER (TRUE);
}

static int
guard_register (void  *addr,
                gsize  size)
{
  static GOnce once = G_ONCE_INIT;
  int slot = -1;

  if (!GPOINTER_TO_INT (g_once (&once, install_guard, NULL)))
    return -1;
  g_mutex_lock (&guard_lock);
  for (guint i = 0; i < MAX_GUARDED; i++)
    if (__atomic_load_n (&guard_slots[i].start, __ATOMIC_ACQUIRE) == 0)
      {
        __atomic_store_n (&guard_slots[i].end, (gsize) addr + size, __ATOMIC_RELEASE);
        __atomic_store_n (&guard_slots[i].start, (gsize) addr, __ATOMIC_RELEASE);
        slot = (int) i;
        break;
      }
  g_mutex_unlock (&guard_lock);
  return slot;
}

static void
guard_unregister (int slot)
{
  g_mutex_lock (&guard_lock);
  __atomic_store_n (&guard_slots[slot].start, 0, __ATOMIC_RELEASE);
  __atomic_store_n (&guard_slots[slot].end, 0, __ATOMIC_RELEASE);
  g_mutex_unlock (&guard_lock);
}

guint
_rk_table_sigbus_count (void)
{
  return (guint) __atomic_load_n (&sigbus_hits, __ATOMIC_RELAXED);
}

typedef struct
{
  void  *addr;
  gsize  size;
  int    slot;
} Mapping;

static void
mapping_free (gpointer data)
{
  Mapping *m = data;

  if (m->slot >= 0)
    guard_unregister (m->slot);
  munmap (m->addr, m->size);
  g_free (m);
}

/* A private copy in a sealed memfd: used when no guard slot is free. */
static GBytes *
snapshot_fd (int      fd,
             guint64  size,
             GError **error)
{
  int mfd;
  guint8 *w;
  guint64 got = 0;
  Mapping *m;
  void *r;

  mfd = memfd_create ("rk-table", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (mfd < 0 || ftruncate (mfd, (off_t) size) < 0)
    goto errno_fail;
  w = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  if (w == MAP_FAILED)
    goto errno_fail;
  while (got < size)
    {
      ssize_t n = pread (fd, w + got, MIN (size - got, (guint64) 1 << 30), (off_t) got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          munmap (w, size);
          errno = saved;
          goto errno_fail;
        }
      if (n == 0)
        break;
      got += (guint64) n;
    }
  munmap (w, size);

  /* The file shrank while we read it: keep what we have, the header check
   * then reports the truncation. */
  if (got < size && ftruncate (mfd, (off_t) got) < 0)
    goto errno_fail;
  if (got == 0)
    {
      close (mfd);
      return g_bytes_new (NULL, 0);
    }
  if (fcntl (mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    goto errno_fail;
  r = mmap (NULL, got, PROT_READ, MAP_SHARED, mfd, 0);
  if (r == MAP_FAILED)
    goto errno_fail;
  close (mfd);

  m = g_new (Mapping, 1);
  m->addr = r;
  m->size = got;
  m->slot = -1;
  return g_bytes_new_with_free_func (r, got, mapping_free, m);

errno_fail:
  {
    int saved = errno;

    if (mfd >= 0)
      close (mfd);
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                 _("Could not read the table file: %s"), g_strerror (saved));
    return NULL;
  }
}

static GBytes *
map_fd (int      fd,
        guint64  size,
        GError **error)
{
  Mapping *m;
  void *addr;
  int slot;

  if (size == 0)
    return g_bytes_new (NULL, 0);
  addr = mmap (NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED)
    return snapshot_fd (fd, size, error);   /* a file system without mmap */
  slot = guard_register (addr, size);
  if (slot < 0)
    {
      munmap (addr, size);
      return snapshot_fd (fd, size, error);
    }
  m = g_new (Mapping, 1);
  m->addr = addr;
  m->size = size;
  m->slot = slot;
  return g_bytes_new_with_free_func (addr, size, mapping_free, m);
}

RkTable *
rk_table_open_fd (int      fd,
                  GError **error)
{
  struct stat st;
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (fstat (fd, &st) < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not read the table file: %s"), g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                           _("The table is not a regular file."));
      return NULL;
    }
  if ((guint64) st.st_size > RK_TABLE_MAX_FILE_SIZE || (guint64) st.st_size > G_MAXSIZE / 2)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                           _("The table file is too large."));
      return NULL;
    }

  bytes = map_fd (fd, (guint64) st.st_size, error);
  if (bytes == NULL)
    return NULL;
  return rk_table_new_from_bytes (bytes, error);
}

static void
set_open_error (GError **error,
                int      saved)
{
  if (saved == ELOOP || saved == EMLINK)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                         _("The table file is a symbolic link, which Reckon does not follow."));
  else
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                 _("Could not open the table file: %s"), g_strerror (saved));
}

#define OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

RkTable *
rk_table_open (const char  *path,
               GError     **error)
{
  RkTable *table;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  do
    fd = open (path, OPEN_FLAGS);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      set_open_error (error, errno);
      return NULL;
    }
  table = rk_table_open_fd (fd, error);
  close (fd);
  return table;
}

RkTable *
rk_table_open_at (int          dirfd,
                  const char  *relpath,
                  GError     **error)
{
  g_autoptr(GError) local = NULL;
  RkTable *table;
  int cur;

  g_return_val_if_fail (relpath != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!rk_path_is_beneath (relpath))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                           _("The table's path leaves the workspace."));
      return NULL;
    }
  /* The one resolver beneath a folder (rk_workspace_open_file_at: openat2
   * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or an O_NOFOLLOW walk). */
  cur = rk_workspace_open_file_at (dirfd, relpath, &local);
  if (cur < 0)
    {
      if (g_error_matches (local, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED))
        set_open_error (error, ELOOP);
      else if (g_error_matches (local, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_REGULAR))
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                             _("The table file is not a regular file."));
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  table = rk_table_open_fd (cur, error);
  close (cur);
  return table;
}

RkTable *
rk_table_open_beneath (RkWorkspace  *workspace,
                       const char   *relpath,
                       GError      **error)
{
  RkTable *table;
  int dirfd;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), NULL);
  g_return_val_if_fail (relpath != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dirfd = rk_workspace_dup_fd (workspace, NULL);
  if (dirfd < 0)
    {
      set_open_error (error, errno);
      return NULL;
    }
  table = rk_table_open_at (dirfd, relpath, error);
  close (dirfd);
  return table;
}

/* ------------------------------------------------------------ columns */

static inline gboolean
string_offsets (const RkTable *self,
                const Column  *c,
                guint          row,
                guint64       *start,
                guint64       *end)
{
  const guint8 *base = self->data + c->data_off;

  if (c->flags & FLAG_OFFSETS32)
    {
      *start = read_u32 (base + (guint64) row * 4);
      *end = read_u32 (base + ((guint64) row + 1) * 4);
    }
  else
    {
      *start = read_u64 (base + (guint64) row * 8);
      *end = read_u64 (base + ((guint64) row + 1) * 8);
    }
  /* Checked again per cell, so a lapse in the column check cannot read out of bounds. */
  return *start <= *end && *end <= c->aux_len;
}

static inline gboolean
bit_valid (const RkTable *self,
           const Column  *c,
           guint          row)
{
  if (c->null_len == 0)
    return TRUE;
  return (self->data[c->null_off + row / 8] >> (row % 8)) & 1;
}

static inline guint64
string_offset (const RkTable *self,
               const Column  *c,
               guint64        index)
{
  const guint8 *base = self->data + c->data_off;

  return (c->flags & FLAG_OFFSETS32) ? read_u32 (base + index * 4) : read_u64 (base + index * 8);
}

/* O(1), on first use: the offsets start at 0 and end at the heap's end. The
 * order of the ones between is checked per cell as it is read, or all at
 * once by column_check_all(). */
static gboolean
column_check_ends (RkTable *self,
                   Column  *c)
{
  if (c->type == RK_TABLE_COLUMN_STRING &&
      (string_offset (self, c, 0) != 0 || string_offset (self, c, self->n_rows) != c->aux_len))
    {
      c->error = g_strdup (_("A text column of the table has invalid offsets."));
      return FALSE;
    }
  return TRUE;
}

/* O(rows): every string offset in order and in range. */
static gboolean
column_check_all (RkTable *self,
                  Column  *c)
{
  guint64 prev = 0;

  if (c->type != RK_TABLE_COLUMN_STRING)
    return TRUE;
  for (guint64 r = 0; r <= self->n_rows; r++)
    {
      guint64 off = string_offset (self, c, r);

      if (off < prev || off > c->aux_len || (r == 0 && off != 0) ||
          (r == self->n_rows && off != c->aux_len))
        {
          c->error = g_strdup (_("A text column of the table has invalid offsets."));
          return FALSE;
        }
      prev = off;
    }
  return TRUE;
}

/* The column if it passed its checks (the cheap ones, or with @all every
 * offset), else NULL. Each check runs once. */
static Column *
column_ready_full (RkTable  *self,
                   guint     column,
                   gboolean  all)
{
  Column *c;
  int state;

  if (column >= self->n_columns)
    return NULL;
  c = &self->columns[column];
  state = g_atomic_int_get (&c->state);
  if (G_UNLIKELY (state == COLUMN_UNCHECKED || (all && state == COLUMN_OK)))
    {
      g_mutex_lock (&self->lock);
      state = g_atomic_int_get (&c->state);
      if (state == COLUMN_UNCHECKED)
        state = column_check_ends (self, c) ? COLUMN_OK : COLUMN_BAD;
      if (all && state == COLUMN_OK)
        state = column_check_all (self, c) ? COLUMN_CHECKED : COLUMN_BAD;
      g_atomic_int_set (&c->state, state);
      g_mutex_unlock (&self->lock);
    }
  return state == COLUMN_OK || state == COLUMN_CHECKED ? c : NULL;
}

static inline Column *
column_ready (RkTable *self,
              guint    column)
{
  return column_ready_full (self, column, FALSE);
}

guint
rk_table_get_n_rows (RkTable *self)
{
  g_return_val_if_fail (RK_IS_TABLE (self), 0);
  return self->n_rows;
}

guint
rk_table_get_n_columns (RkTable *self)
{
  g_return_val_if_fail (RK_IS_TABLE (self), 0);
  return self->n_columns;
}

guint
rk_table_get_n_index_columns (RkTable *self)
{
  g_return_val_if_fail (RK_IS_TABLE (self), 0);
  return self->n_index;
}

const char *
rk_table_get_column_name (RkTable *self,
                          guint    column)
{
  g_return_val_if_fail (RK_IS_TABLE (self), NULL);
  g_return_val_if_fail (column < self->n_columns, NULL);
  return self->columns[column].name;
}

RkTableColumnType
rk_table_get_column_type (RkTable *self,
                          guint    column)
{
  g_return_val_if_fail (RK_IS_TABLE (self), 0);
  g_return_val_if_fail (column < self->n_columns, 0);
  return self->columns[column].type;
}

const char *
rk_table_get_column_timezone (RkTable *self,
                              guint    column)
{
  g_return_val_if_fail (RK_IS_TABLE (self), NULL);
  g_return_val_if_fail (column < self->n_columns, NULL);
  return self->columns[column].tz_name;
}

gboolean
rk_table_check_column (RkTable  *self,
                       guint     column,
                       GError  **error)
{
  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  g_return_val_if_fail (column < self->n_columns, FALSE);

  if (column_ready_full (self, column, TRUE) == NULL)
    return fail (error, RK_PARSE_ERROR_MALFORMED, self->columns[column].error);
  return TRUE;
}

/* ---------------------------------------------------------- cells */

static inline Column *
cell_column (RkTable *self,
             guint    row,
             guint    column)
{
  Column *c;

  if (row >= self->n_rows)
    return NULL;
  c = column_ready (self, column);
  if (c == NULL || !bit_valid (self, c, row))
    return NULL;
  if (c->type == RK_TABLE_COLUMN_STRING)
    {
      guint64 start, end;

      /* Out-of-order offsets make that cell null. */
      if (!string_offsets (self, c, row, &start, &end))
        return NULL;
    }
  return c;
}

gboolean
rk_table_is_null (RkTable *self,
                  guint    row,
                  guint    column)
{
  g_return_val_if_fail (RK_IS_TABLE (self), TRUE);
  return cell_column (self, row, column) == NULL;
}

gboolean
rk_table_get_int64 (RkTable *self,
                    guint    row,
                    guint    column,
                    gint64  *value)
{
  Column *c;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  c = cell_column (self, row, column);
  if (c == NULL || c->type != RK_TABLE_COLUMN_INT64)
    return FALSE;
  if (value)
    *value = (gint64) read_u64 (self->data + c->data_off + (guint64) row * 8);
  return TRUE;
}

static inline double
read_double (const guint8 *p)
{
  guint64 bits = read_u64 (p);
  double v;

  memcpy (&v, &bits, 8);
  return v;
}

gboolean
rk_table_get_double (RkTable *self,
                     guint    row,
                     guint    column,
                     double  *value)
{
  Column *c;
  const guint8 *p;
  double v;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  c = cell_column (self, row, column);
  if (c == NULL)
    return FALSE;
  switch (c->type)
    {
    case RK_TABLE_COLUMN_FLOAT64:
      p = self->data + c->data_off + (guint64) row * 8;
      v = read_double (p);
      break;
    case RK_TABLE_COLUMN_INT64:
      v = (double) (gint64) read_u64 (self->data + c->data_off + (guint64) row * 8);
      break;
    case RK_TABLE_COLUMN_BOOL:
      v = self->data[c->data_off + row] ? 1.0 : 0.0;
      break;
    case RK_TABLE_COLUMN_DATETIME:
    case RK_TABLE_COLUMN_STRING:
    default:
      return FALSE;
    }
  if (value)
    *value = v;
  return TRUE;
}

gboolean
rk_table_get_boolean (RkTable  *self,
                      guint     row,
                      guint     column,
                      gboolean *value)
{
  Column *c;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  c = cell_column (self, row, column);
  if (c == NULL || c->type != RK_TABLE_COLUMN_BOOL)
    return FALSE;
  if (value)
    *value = self->data[c->data_off + row] != 0;
  return TRUE;
}

gboolean
rk_table_get_datetime (RkTable *self,
                       guint    row,
                       guint    column,
                       gint64  *nanoseconds)
{
  Column *c;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  c = cell_column (self, row, column);
  if (c == NULL || c->type != RK_TABLE_COLUMN_DATETIME)
    return FALSE;
  if (nanoseconds)
    *nanoseconds = (gint64) read_u64 (self->data + c->data_off + (guint64) row * 8);
  return TRUE;
}

const char *
rk_table_peek_string (RkTable *self,
                      guint    row,
                      guint    column,
                      gsize   *length)
{
  Column *c;
  guint64 start, end;

  g_return_val_if_fail (RK_IS_TABLE (self), NULL);
  c = cell_column (self, row, column);
  if (c == NULL || c->type != RK_TABLE_COLUMN_STRING || !string_offsets (self, c, row, &start, &end))
    return NULL;
  if (length)
    *length = end - start;
  return (const char *) self->data + c->aux_off + start;
}

/* ------------------------------------------------------- formatting */

static inline gint64
floor_div (gint64 a,
           gint64 b)
{
  gint64 q = a / b;

  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

/* Days since 1970-01-01 to a civil date (H. Hinnant's algorithm). */
static void
civil_from_days (gint64  z,
                 gint64 *year,
                 guint  *month,
                 guint  *day)
{
  gint64 era, y;
  guint doe, yoe, doy, mp;

  z += 719468;
  era = floor_div (z, 146097);
  doe = (guint) (z - era * 146097);
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = (gint64) yoe + era * 400;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (*month <= 2);
}

/* Seconds to add to UTC to get the wall time of @c at @secs. */
static int
column_utc_offset (const Column *c,
                   gint64        secs)
{
  int interval;

  if (c->tz == NULL)
    return 0;
  interval = g_time_zone_find_interval (c->tz, G_TIME_TYPE_UNIVERSAL, secs);
  return interval >= 0 ? g_time_zone_get_offset (c->tz, interval) : 0;
}

static void
format_datetime (GString      *out,
                           const Column *c,
                           gint64        ns)
{
  gint64 secs = floor_div (ns, 1000000000);
  gint64 frac = ns - secs * 1000000000;
  int offset = column_utc_offset (c, secs);
  gint64 local = secs + offset;
  gint64 days = floor_div (local, 86400);
  gint64 sod = local - days * 86400;
  gint64 year;
  guint month, day;

  civil_from_days (days, &year, &month, &day);
  g_string_append_printf (out, "%04" G_GINT64_FORMAT "-%02u-%02u", year, month, day);
  if (c->date_only)
    return;
  g_string_append_printf (out, " %02d:%02d:%02d",
                          (int) (sod / 3600), (int) (sod / 60 % 60), (int) (sod % 60));
  if (frac != 0)
    {
      if (frac % 1000000 == 0)
        g_string_append_printf (out, ".%03d", (int) (frac / 1000000));
      else if (frac % 1000 == 0)
        g_string_append_printf (out, ".%06d", (int) (frac / 1000));
      else
        g_string_append_printf (out, ".%09d", (int) frac);
    }
  if (c->tz != NULL)
    {
      int a = ABS (offset);
      g_string_append_printf (out, "%c%02d:%02d", offset < 0 ? '-' : '+', a / 3600, a / 60 % 60);
    }
}

/* Display: 15 significant digits, Python style ("1.0"). Exact: the shortest
 * text that reads back to the same double. */
void
_rk_table_format_double (GString  *out,
                         double    v,
                         gboolean  exact)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean integral = TRUE;

  if (isnan (v))
    {
      g_string_append (out, "NaN");
      return;
    }
  if (isinf (v))
    {
      g_string_append (out, v < 0 ? "-inf" : "inf");
      return;
    }
  if (exact)
    {
      for (int prec = 15; prec <= 17; prec++)
        {
          char fmt[8];
          g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
          g_ascii_formatd (buf, sizeof buf, fmt, v);
          if (g_ascii_strtod (buf, NULL) == v)
            break;
        }
    }
  else
    g_ascii_formatd (buf, sizeof buf, "%.15g", v);

  for (const char *p = buf; *p; p++)
    if (!(g_ascii_isdigit (*p) || *p == '-'))
      integral = FALSE;
  g_string_append (out, buf);
  if (integral)
    g_string_append (out, ".0");
}

gboolean
_rk_table_column_date_only (RkTable *self,
                            guint    column)
{
  Column *c = column_ready (self, column);

  return c != NULL && c->date_only;
}

int
_rk_table_column_utc_offset (RkTable *self,
                             guint    column,
                             gint64   secs)
{
  g_return_val_if_fail (column < self->n_columns, 0);
  return column_utc_offset (&self->columns[column], secs);
}

gboolean
_rk_table_append_cell (RkTable  *self,
                       GString  *out,
                       guint     row,
                       guint     column,
                       gboolean  exact)
{
  Column *c = cell_column (self, row, column);
  const guint8 *p;

  if (c == NULL)
    return FALSE;
  p = self->data + c->data_off;
  switch (c->type)
    {
    case RK_TABLE_COLUMN_INT64:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) read_u64 (p + (guint64) row * 8));
      break;
    case RK_TABLE_COLUMN_FLOAT64:
      {
        double v = read_double (p + (guint64) row * 8);

        if (exact && isnan (v))
          return FALSE;
        _rk_table_format_double (out, v, exact);
      }
      break;
    case RK_TABLE_COLUMN_BOOL:
      g_string_append (out, p[row] ? "True" : "False");
      break;
    case RK_TABLE_COLUMN_DATETIME:
      format_datetime (out, c, (gint64) read_u64 (p + (guint64) row * 8));
      break;
    case RK_TABLE_COLUMN_STRING:
      {
        guint64 start, end;

        if (!string_offsets (self, c, row, &start, &end))
          return FALSE;
        append_valid_utf8 (out, (const char *) self->data + c->aux_off + start, end - start);
      }
      break;
    default:
      g_assert_not_reached ();
    }
  return TRUE;
}

char *
rk_table_get_cell_text (RkTable *self,
                        guint    row,
                        guint    column)
{
  GString *out;

  g_return_val_if_fail (RK_IS_TABLE (self), NULL);

  out = g_string_new (NULL);
  _rk_table_append_cell (self, out, row, column, FALSE);
  return g_string_free (out, FALSE);
}

/* The cells of the rows (@rows[first..first+n), or first..first+n itself
 * when @rows is NULL), read and dropped: their pages are then in memory. */
static void
prefetch (RkTable       *self,
          const guint32 *rows,
          guint          first,
          guint          n)
{
  g_autoptr(GString) scratch = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      guint row = rows != NULL ? rows[first + i] : first + i;

      for (guint c = 0; c < self->n_columns; c++)
        {
          g_string_truncate (scratch, 0);
          _rk_table_append_cell (self, scratch, row, c, FALSE);
        }
    }
}

void
rk_table_prefetch_rows (RkTable *self,
                        guint    first_row,
                        guint    n_rows)
{
  g_return_if_fail (RK_IS_TABLE (self));

  if (first_row >= self->n_rows)
    return;
  prefetch (self, NULL, first_row, MIN (n_rows, self->n_rows - first_row));
}

/* ------------------------------------------------------------- sort */

typedef struct
{
  union
  {
    gint64 i;
    double d;
    struct
    {
      const guint8 *p;
      gsize         len;
    } s;
  } k;
  guint32 row;
} SortKey;

static int
compare_int_keys (const void *a,
                  const void *b,
                  void       *data)
{
  const SortKey *x = a, *y = b;
  int desc = GPOINTER_TO_INT (data);
  int cmp = x->k.i < y->k.i ? -1 : x->k.i > y->k.i ? 1 : 0;

  if (desc)
    cmp = -cmp;
  return cmp != 0 ? cmp : (x->row < y->row ? -1 : 1);
}

static int
compare_double_keys (const void *a,
                     const void *b,
                     void       *data)
{
  const SortKey *x = a, *y = b;
  int desc = GPOINTER_TO_INT (data);
  int cmp = x->k.d < y->k.d ? -1 : x->k.d > y->k.d ? 1 : 0;

  if (desc)
    cmp = -cmp;
  return cmp != 0 ? cmp : (x->row < y->row ? -1 : 1);
}

static int
compare_string_keys (const void *a,
                     const void *b,
                     void       *data)
{
  const SortKey *x = a, *y = b;
  int desc = GPOINTER_TO_INT (data);
  gsize n = MIN (x->k.s.len, y->k.s.len);
  int cmp = n ? memcmp (x->k.s.p, y->k.s.p, n) : 0;

  if (cmp == 0)
    cmp = x->k.s.len < y->k.s.len ? -1 : x->k.s.len > y->k.s.len ? 1 : 0;
  else
    cmp = cmp < 0 ? -1 : 1;
  if (desc)
    cmp = -cmp;
  return cmp != 0 ? cmp : (x->row < y->row ? -1 : 1);
}

/* Bottom-up merge sort, stable. Our own rather than qsort(): string keys
 * point into the mapped file, which the sandbox may change meanwhile, and a
 * merge sort stays in bounds even when comparisons contradict each other. */
static gboolean
merge_sort (SortKey       *keys,
            gsize          n,
            int          (*compare) (const void *, const void *, void *),
            void          *data,
            GCancellable  *cancellable,
            GError       **error)
{
  g_autofree SortKey *tmp = NULL;
  SortKey *src = keys, *dst;

  if (n < 2)
    return TRUE;
  tmp = g_new (SortKey, n);
  dst = tmp;
  for (gsize width = 1; width < n; width *= 2)
    {
      SortKey *swap;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      for (gsize lo = 0; lo < n; lo += 2 * width)
        {
          gsize mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);
          gsize l = lo, r = mid, k = lo;

          while (l < mid && r < hi)
            dst[k++] = compare (&src[r], &src[l], data) < 0 ? src[r++] : src[l++];
          while (l < mid)
            dst[k++] = src[l++];
          while (r < hi)
            dst[k++] = src[r++];
        }
      swap = src;
      src = dst;
      dst = swap;
    }
  if (src != keys)
    memcpy (keys, src, n * sizeof (SortKey));
  return TRUE;
}

/* A permutation of the rows (guint32 each), stable, nulls and NaN last.
 * Thread-safe: reads the read-only mapping only. */
static GBytes *
compute_permutation (RkTable       *self,
                     guint          column,
                     gboolean       ascending,
                     GCancellable  *cancellable,
                     GError       **error)
{
  Column *c = column_ready_full (self, column, TRUE);
  g_autofree SortKey *keys = NULL;
  g_autofree guint32 *nulls = NULL;
  guint32 *perm;
  gsize n_keys = 0, n_nulls = 0;
  int (*compare) (const void *, const void *, void *);

  if (c == NULL)
    return fail (error, RK_PARSE_ERROR_MALFORMED, self->columns[column].error), NULL;

  keys = g_new (SortKey, MAX (self->n_rows, 1));
  nulls = g_new (guint32, MAX (self->n_rows, 1));
  for (guint r = 0; r < self->n_rows; r++)
    {
      const guint8 *p = self->data + c->data_off;
      SortKey *k = &keys[n_keys];

      if (!bit_valid (self, c, r))
        {
          nulls[n_nulls++] = r;
          continue;
        }
      switch (c->type)
        {
        case RK_TABLE_COLUMN_INT64:
        case RK_TABLE_COLUMN_DATETIME:
          k->k.i = (gint64) read_u64 (p + (guint64) r * 8);
          break;
        case RK_TABLE_COLUMN_BOOL:
          k->k.i = p[r] != 0;
          break;
        case RK_TABLE_COLUMN_FLOAT64:
          k->k.d = read_double (p + (guint64) r * 8);
          if (isnan (k->k.d))
            {
              nulls[n_nulls++] = r;
              continue;
            }
          break;
        case RK_TABLE_COLUMN_STRING:
          {
            guint64 start, end;

            if (!string_offsets (self, c, r, &start, &end))
              {
                nulls[n_nulls++] = r;
                continue;
              }
            k->k.s.p = self->data + c->aux_off + start;
            k->k.s.len = end - start;
          }
          break;
        default:
          g_assert_not_reached ();
        }
      k->row = r;
      n_keys++;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  compare = c->type == RK_TABLE_COLUMN_FLOAT64 ? compare_double_keys
          : c->type == RK_TABLE_COLUMN_STRING ? compare_string_keys
          : compare_int_keys;
  if (!merge_sort (keys, n_keys, compare, GINT_TO_POINTER (!ascending), cancellable, error))
    return NULL;

  perm = g_new (guint32, MAX (self->n_rows, 1));
  for (gsize i = 0; i < n_keys; i++)
    perm[i] = keys[i].row;
  memcpy (perm + n_keys, nulls, n_nulls * sizeof (guint32));
  return g_bytes_new_take (perm, (gsize) self->n_rows * sizeof (guint32));
}

static void
apply_permutation (RkTable *self,
                   GBytes  *perm,
                   int      column,
                   gboolean ascending)
{
  g_clear_pointer (&self->perm, g_bytes_unref);
  self->perm = perm;
  self->sort_column = column;
  self->sort_ascending = ascending;
  if (self->n_rows > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, self->n_rows, self->n_rows);
}

gboolean
rk_table_sort (RkTable   *self,
               int        column,
               gboolean   ascending,
               GError   **error)
{
  GBytes *perm = NULL;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  g_return_val_if_fail (column >= -1 && column < (int) self->n_columns, FALSE);

  if (column >= 0)
    {
      perm = compute_permutation (self, (guint) column, ascending, NULL, error);
      if (perm == NULL)
        return FALSE;
    }
  apply_permutation (self, perm, column, ascending);
  return TRUE;
}

/* Rows of the new order read in the sort's thread (a screenful and more). */
#define SORT_PREFETCH_ROWS 64

typedef struct
{
  int      column;
  gboolean ascending;
} SortData;

static void
sort_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  RkTable *self = source_object;
  SortData *sd = task_data;
  GError *error = NULL;
  GBytes *perm = NULL;

  if (sd->column >= 0)
    {
      perm = compute_permutation (self, (guint) sd->column, sd->ascending, cancellable, &error);
      if (perm == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      /* the rows a view shows first in the new order, read here rather
       * than by the GUI thread when it binds them */
      prefetch (self, g_bytes_get_data (perm, NULL), 0, MIN (self->n_rows, SORT_PREFETCH_ROWS));
    }
  else
    {
      perm = g_bytes_new (NULL, 0);   /* marks "file order" */
      prefetch (self, NULL, 0, MIN (self->n_rows, SORT_PREFETCH_ROWS));
    }
  g_task_return_pointer (task, perm, (GDestroyNotify) g_bytes_unref);
}

void
rk_table_sort_async (RkTable             *self,
                     int                  column,
                     gboolean             ascending,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SortData *sd;

  g_return_if_fail (RK_IS_TABLE (self));
  g_return_if_fail (column >= -1 && column < (int) self->n_columns);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_table_sort_async);
  sd = g_new (SortData, 1);
  sd->column = column;
  sd->ascending = ascending;
  g_task_set_task_data (task, sd, g_free);
  g_task_run_in_thread (task, sort_thread);
}

/* Applies the new order (in the caller's thread, which owns the model). */
gboolean
rk_table_sort_finish (RkTable       *self,
                      GAsyncResult  *result,
                      GError       **error)
{
  SortData *sd;
  GBytes *perm;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  sd = g_task_get_task_data (G_TASK (result));
  perm = g_task_propagate_pointer (G_TASK (result), error);
  if (perm == NULL)
    return FALSE;
  if (sd->column < 0)
    g_clear_pointer (&perm, g_bytes_unref);
  apply_permutation (self, perm, sd->column, sd->ascending);
  return TRUE;
}

int
rk_table_get_sort_column (RkTable *self)
{
  g_return_val_if_fail (RK_IS_TABLE (self), -1);
  return self->sort_column;
}

gboolean
rk_table_get_sort_ascending (RkTable *self)
{
  g_return_val_if_fail (RK_IS_TABLE (self), TRUE);
  return self->sort_ascending;
}

guint
rk_table_get_row_at (RkTable *self,
                     guint    position)
{
  g_return_val_if_fail (RK_IS_TABLE (self), 0);
  g_return_val_if_fail (position < self->n_rows, 0);

  if (self->perm == NULL)
    return position;
  return ((const guint32 *) g_bytes_get_data (self->perm, NULL))[position];
}

GBytes *
_rk_table_ref_permutation (RkTable *self)
{
  return self->perm ? g_bytes_ref (self->perm) : NULL;
}

/* ------------------------------------------------------- list model */

struct _RkTableRow
{
  GObject  parent_instance;
  RkTable *table;
  guint    index;
};

G_DEFINE_FINAL_TYPE (RkTableRow, rk_table_row, G_TYPE_OBJECT)

static void
rk_table_row_dispose (GObject *object)
{
  RkTableRow *self = RK_TABLE_ROW (object);

  g_clear_object (&self->table);
  G_OBJECT_CLASS (rk_table_row_parent_class)->dispose (object);
}

static void
rk_table_row_class_init (RkTableRowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rk_table_row_dispose;
}

static void
rk_table_row_init (RkTableRow *self)
{
}

RkTable *
rk_table_row_get_table (RkTableRow *self)
{
  g_return_val_if_fail (RK_IS_TABLE_ROW (self), NULL);
  return self->table;
}

guint
rk_table_row_get_index (RkTableRow *self)
{
  g_return_val_if_fail (RK_IS_TABLE_ROW (self), 0);
  return self->index;
}

char *
rk_table_row_get_cell_text (RkTableRow *self,
                            guint       column)
{
  g_return_val_if_fail (RK_IS_TABLE_ROW (self), NULL);
  return rk_table_get_cell_text (self->table, self->index, column);
}

static GType
rk_table_get_item_type (GListModel *model)
{
  return RK_TYPE_TABLE_ROW;
}

static guint
rk_table_get_n_items (GListModel *model)
{
  return RK_TABLE (model)->n_rows;
}

static gpointer
rk_table_get_item (GListModel *model,
                   guint       position)
{
  RkTable *self = RK_TABLE (model);
  RkTableRow *row;

  if (position >= self->n_rows)
    return NULL;
  row = g_object_new (RK_TYPE_TABLE_ROW, NULL);
  row->table = g_object_ref (self);
  row->index = rk_table_get_row_at (self, position);
  return row;
}

static void
rk_table_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = rk_table_get_item_type;
  iface->get_n_items = rk_table_get_n_items;
  iface->get_item = rk_table_get_item;
}
