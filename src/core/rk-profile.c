/* rk-profile.c — runs the file profiler inside reckon-sandbox, parses what it
 * prints (hostile bytes: size caps, strict types) and renders it for a model. */
#define G_LOG_DOMAIN "rk-profile"
#include "config.h"
#include "rk-profile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>
#include <json-glib/json-glib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-enum-types.h"
#include "rk-json.h"
#include "rk-profile-private.h"
#include "rk-profile-progress.h"
#include "rk-sandbox-launcher.h"
#include "rk-util.h"

#define MAX_FILES       256
#define MAX_TABLES      64
#define MAX_COLUMNS     256
#define MAX_HEAD_ROWS   10
#define MAX_LIST        32
#define MAX_STRING      4096
#define MAX_DEPTH       16
#define MAX_STDERR      (64 * 1024)
/* The profiler's own sentence for a MemoryError (reckon/profile.py). */
#define ERR_MEMORY      "This file needs more memory than the sandbox allows, so it was not profiled."

static guint64 profile_memory = G_GUINT64_CONSTANT (2) * 1024 * 1024 * 1024;
static guint profile_timeout = 60;

void
rk_profile_set_limits (guint64 memory_bytes,
                       guint   timeout_seconds)
{
  profile_memory = memory_bytes;
  profile_timeout = timeout_seconds;
}

/* -- types ---------------------------------------------------------------- */

static void
column_free (gpointer data)
{
  RkColumnProfile *c = data;

  g_free (c->name);
  g_free (c->min_text);
  g_free (c->max_text);
  g_strfreev (c->values);
  g_free (c);
}

static void
table_free (gpointer data)
{
  RkTableProfile *t = data;

  g_free (t->name);
  g_clear_pointer (&t->columns, g_ptr_array_unref);
  g_clear_pointer (&t->head, g_ptr_array_unref);
  g_free (t);
}

static void
date_column_free (gpointer data)
{
  RkDateColumn *d = data;

  g_free (d->format);
  g_free (d->label);
  g_free (d);
}

static void
skipped_line_free (gpointer data)
{
  RkSkippedLine *l = data;

  g_free (l->text);
  g_free (l->why);
  g_free (l);
}

static void
doubt_free (gpointer data)
{
  RkReadingDoubt *d = data;

  g_free (d->what);
  g_free (d->note);
  g_free (d);
}

static void
reading_free (RkFileReading *r)
{
  if (r == NULL)
    return;
  g_free (r->format);
  g_free (r->compression);
  g_free (r->member);
  g_free (r->encoding);
  g_free (r->delimiter);
  g_free (r->comment);
  g_free (r->decimal);
  g_free (r->quotechar);
  g_free (r->sheet);
  g_clear_pointer (&r->dates, g_ptr_array_unref);
  g_clear_pointer (&r->skipped, g_ptr_array_unref);
  g_clear_pointer (&r->doubts, g_ptr_array_unref);
  g_free (r);
}

static RkFileReading *
reading_copy (const RkFileReading *r)
{
  RkFileReading *c;

  if (r == NULL)
    return NULL;
  c = g_memdup2 (r, sizeof *r);
  c->format = g_strdup (r->format);
  c->compression = g_strdup (r->compression);
  c->member = g_strdup (r->member);
  c->encoding = g_strdup (r->encoding);
  c->delimiter = g_strdup (r->delimiter);
  c->comment = g_strdup (r->comment);
  c->decimal = g_strdup (r->decimal);
  c->quotechar = g_strdup (r->quotechar);
  c->sheet = g_strdup (r->sheet);
  c->dates = g_ptr_array_new_with_free_func (date_column_free);
  for (guint i = 0; i < r->dates->len; i++)
    {
      const RkDateColumn *src = g_ptr_array_index (r->dates, i);
      RkDateColumn *d = g_memdup2 (src, sizeof *src);

      d->format = g_strdup (src->format);
      d->label = g_strdup (src->label);
      g_ptr_array_add (c->dates, d);
    }
  c->skipped = g_ptr_array_new_with_free_func (skipped_line_free);
  for (guint i = 0; i < r->skipped->len; i++)
    {
      const RkSkippedLine *src = g_ptr_array_index (r->skipped, i);
      RkSkippedLine *l = g_memdup2 (src, sizeof *src);

      l->text = g_strdup (src->text);
      l->why = g_strdup (src->why);
      g_ptr_array_add (c->skipped, l);
    }
  c->doubts = g_ptr_array_new_with_free_func (doubt_free);
  for (guint i = 0; i < r->doubts->len; i++)
    {
      const RkReadingDoubt *src = g_ptr_array_index (r->doubts, i);
      RkReadingDoubt *d = g_new0 (RkReadingDoubt, 1);

      d->what = g_strdup (src->what);
      d->note = g_strdup (src->note);
      g_ptr_array_add (c->doubts, d);
    }
  return c;
}

void
rk_file_profile_free (RkFileProfile *self)
{
  if (self == NULL)
    return;
  g_free (self->name);
  g_free (self->error);
  g_free (self->encoding);
  g_free (self->delimiter);
  g_free (self->decimal);
  g_free (self->read_hint);
  g_strfreev (self->page_text);
  g_strfreev (self->first_lines);
  g_strfreev (self->notes);
  g_clear_pointer (&self->tables, g_ptr_array_unref);
  g_free (self->raw_json);
  reading_free (self->reading);
  g_free (self);
}

static RkTableProfile *
table_copy (const RkTableProfile *t)
{
  RkTableProfile *c = g_memdup2 (t, sizeof *t);

  c->name = g_strdup (t->name);
  c->columns = g_ptr_array_new_with_free_func (column_free);
  for (guint i = 0; i < t->columns->len; i++)
    {
      const RkColumnProfile *src = g_ptr_array_index (t->columns, i);
      RkColumnProfile *col = g_memdup2 (src, sizeof *src);

      col->name = g_strdup (src->name);
      col->min_text = g_strdup (src->min_text);
      col->max_text = g_strdup (src->max_text);
      col->values = g_strdupv (src->values);
      g_ptr_array_add (c->columns, col);
    }
  c->head = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  for (guint i = 0; i < t->head->len; i++)
    g_ptr_array_add (c->head, g_strdupv (g_ptr_array_index (t->head, i)));
  return c;
}

RkFileProfile *
rk_file_profile_copy (const RkFileProfile *self)
{
  RkFileProfile *c = g_memdup2 (self, sizeof *self);

  c->name = g_strdup (self->name);
  c->error = g_strdup (self->error);
  c->encoding = g_strdup (self->encoding);
  c->delimiter = g_strdup (self->delimiter);
  c->decimal = g_strdup (self->decimal);
  c->read_hint = g_strdup (self->read_hint);
  c->page_text = g_strdupv (self->page_text);
  c->first_lines = g_strdupv (self->first_lines);
  c->notes = g_strdupv (self->notes);
  c->raw_json = g_strdup (self->raw_json);
  c->reading = reading_copy (self->reading);
  c->tables = g_ptr_array_new_with_free_func (table_free);
  for (guint i = 0; i < self->tables->len; i++)
    g_ptr_array_add (c->tables, table_copy (g_ptr_array_index (self->tables, i)));
  return c;
}

G_DEFINE_BOXED_TYPE (RkFileProfile, rk_file_profile, rk_file_profile_copy, rk_file_profile_free)

static RkFileProfile *
file_profile_new (const char *name)
{
  RkFileProfile *p = g_new0 (RkFileProfile, 1);

  p->name = g_strdup (name);
  p->tables = g_ptr_array_new_with_free_func (table_free);
  return p;
}

RkFileProfile *
rk_file_profile_new_error (const char *name,
                           const char *error)
{
  RkFileProfile *p = file_profile_new (name);

  p->error = g_strdup (error);
  return p;
}

const char *
rk_file_kind_to_string (RkFileKind kind)
{
  return rk_enum_to_nick (RK_TYPE_FILE_KIND, kind, "unknown");
}

const char *
rk_column_type_to_string (RkColumnType type)
{
  return rk_enum_to_nick (RK_TYPE_COLUMN_TYPE, type, "text");
}

/* -- parsing -------------------------------------------------------------- */

/* Valid UTF-8, at most @cap bytes, without control characters other than
 * tab and line breaks (no terminal escapes reach a screen or a prompt). */
static char *
clean_string (const char *s,
              gsize       cap)
{
  g_autofree char *valid = g_utf8_make_valid (s, -1);
  GString *out = g_string_sized_new (MIN (strlen (valid), cap) + 1);

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c) && c != '\t' && c != '\n' && c != '\r')
        continue;
      if (out->len + 6 > cap)
        break;
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

/* The profiler's members are read leniently: a member of the wrong type
 * counts as absent. The type checks are rk-json's. */
static char *
get_string (JsonObject *obj,
            const char *member)
{
  const char *s = NULL;

  if (!rk_json_get_string (obj, member, RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &s, NULL) || s == NULL)
    return NULL;
  return clean_string (s, MAX_STRING);
}

/* TRUE when @member is present and a number. */
static gboolean
get_number (JsonObject *obj,
            const char *member,
            double     *out)
{
  double v = NAN;

  if (!rk_json_get_double (obj, member, -G_MAXDOUBLE, G_MAXDOUBLE, RK_JSON_OPTIONAL, &v, NULL) || isnan (v))
    return FALSE;
  *out = v;
  return TRUE;
}

static guint64
get_count (JsonObject *obj,
           const char *member)
{
  double v = 0;

  if (!get_number (obj, member, &v) || !(v >= 0) || v > 1e15)
    return 0;
  return (guint64) v;
}

static gboolean
get_bool (JsonObject *obj,
          const char *member)
{
  gboolean b = FALSE;

  return rk_json_get_bool (obj, member, RK_JSON_OPTIONAL, &b, NULL) && b;
}

static JsonArray *
get_array (JsonObject *obj,
           const char *member)
{
  JsonArray *a = NULL;

  rk_json_get_array (obj, member, RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &a, NULL);
  return a;
}

/* A cell: a string, a number or null (shown as ""). */
static char *
cell_string (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (!JSON_NODE_HOLDS_VALUE (node))
    return g_strdup ("");
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return clean_string (json_node_get_string (node), 512);
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    case G_TYPE_DOUBLE:
      return g_strdup_printf ("%.6g", json_node_get_double (node));
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? "true" : "false");
    default:
      return g_strdup ("");
    }
}

static GStrv
get_strv (JsonObject *obj,
          const char *member,
          guint       max)
{
  JsonArray *arr = get_array (obj, member);
  g_autoptr(GStrvBuilder) b = NULL;

  if (arr == NULL)
    return NULL;
  b = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (arr) && i < max; i++)
    {
      g_autofree char *s = cell_string (json_array_get_element (arr, i));

      g_strv_builder_add (b, s);
    }
  return g_strv_builder_end (b);
}

static RkColumnProfile *
parse_column (JsonObject *obj)
{
  RkColumnProfile *c = g_new0 (RkColumnProfile, 1);
  g_autofree char *type = get_string (obj, "type");
  double v;

  c->name = get_string (obj, "name");
  if (c->name == NULL)
    c->name = g_strdup ("");
  c->type = rk_enum_from_nick (RK_TYPE_COLUMN_TYPE, type, RK_COLUMN_TEXT);
  c->missing = get_count (obj, "missing");
  c->unique = -1;
  if (get_number (obj, "unique", &v) && v >= 0 && v < 1e15)
    c->unique = (gint64) v;
  if (get_number (obj, "min", &c->min) && get_number (obj, "max", &c->max) &&
      get_number (obj, "mean", &c->mean))
    {
      c->has_stats = TRUE;
      c->has_std = get_number (obj, "std", &c->std);
    }
  c->min_text = get_string (obj, "min");
  c->max_text = get_string (obj, "max");
  c->values = get_strv (obj, "values", 10);
  {
    g_autofree char *dtype = get_string (obj, "dtype");

    c->category = g_strcmp0 (dtype, "category") == 0;
  }
  return c;
}

static RkTableProfile *
parse_table (JsonObject *obj)
{
  RkTableProfile *t = g_new0 (RkTableProfile, 1);
  JsonArray *cols = get_array (obj, "column_info");
  JsonArray *head = get_array (obj, "head");

  t->name = get_string (obj, "name");
  t->rows = get_count (obj, "rows");
  t->n_columns = (guint) MIN (get_count (obj, "columns"), G_MAXUINT);
  t->header = get_bool (obj, "header");
  t->rows_approximate = get_bool (obj, "rows_approximate");
  t->rows_sampled = get_count (obj, "rows_sampled");
  t->page = (guint) MIN (get_count (obj, "page"), G_MAXUINT);
  t->columns = g_ptr_array_new_with_free_func (column_free);
  t->head = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

  for (guint i = 0; cols != NULL && i < json_array_get_length (cols) && i < MAX_COLUMNS; i++)
    {
      JsonNode *n = json_array_get_element (cols, i);

      if (JSON_NODE_HOLDS_OBJECT (n))
        g_ptr_array_add (t->columns, parse_column (json_node_get_object (n)));
    }
  for (guint i = 0; head != NULL && i < json_array_get_length (head) && i < MAX_HEAD_ROWS; i++)
    {
      JsonNode *n = json_array_get_element (head, i);
      g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
      JsonArray *row;

      if (!JSON_NODE_HOLDS_ARRAY (n))
        continue;
      row = json_node_get_array (n);
      for (guint j = 0; j < json_array_get_length (row) && j < MAX_COLUMNS; j++)
        {
          g_autofree char *cell = cell_string (json_array_get_element (row, j));

          g_strv_builder_add (b, cell);
        }
      g_ptr_array_add (t->head, g_strv_builder_end (b));
    }
  return t;
}

#define MAX_READING_LIST 64

/* The profiler's "reading": every string capped, every list bounded, and
 * numbers in range; an unknown format means no reading at all. */
static RkFileReading *
parse_reading (JsonObject *obj)
{
  static const char * const formats[] = { "csv", "xlsx", "xls", "ods", "json", "pdf", NULL };
  static const char * const compressions[] = { "gzip", "bz2", "xz", "zip", NULL };
  RkFileReading *r;
  g_autofree char *format = get_string (obj, "format");
  g_autofree char *compression = get_string (obj, "compression");
  JsonArray *arr;

  if (format == NULL || !g_strv_contains (formats, format))
    return NULL;
  r = g_new0 (RkFileReading, 1);
  r->format = g_steal_pointer (&format);
  if (compression != NULL && g_strv_contains (compressions, compression))
    r->compression = g_steal_pointer (&compression);
  r->member = get_string (obj, "member");
  r->encoding = get_string (obj, "encoding");
  r->delimiter = get_string (obj, "delimiter");
  if (r->delimiter != NULL && g_utf8_strlen (r->delimiter, -1) != 1)
    g_clear_pointer (&r->delimiter, g_free);
  r->whitespace = get_bool (obj, "whitespace");
  r->header = get_bool (obj, "header");
  r->skip_lines = (guint) MIN (get_count (obj, "skip_lines"), G_MAXUINT);
  r->comment_lines = (guint) MIN (get_count (obj, "comment_lines"), G_MAXUINT);
  r->comment = get_string (obj, "comment");
  r->decimal = get_string (obj, "decimal");
  r->quotechar = get_string (obj, "quotechar");
  r->sheet = get_string (obj, "sheet");
  {
    g_autofree char *quoting = get_string (obj, "quoting");

    r->quotes_are_text = g_strcmp0 (quoting, "none") == 0;
  }

  r->dates = g_ptr_array_new_with_free_func (date_column_free);
  arr = get_array (obj, "dates");
  for (guint i = 0; arr != NULL && i < json_array_get_length (arr) && i < MAX_READING_LIST; i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      JsonObject *o;
      RkDateColumn *d;
      double column;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      if (!get_number (o, "column", &column) || !(column >= 0) || column >= MAX_COLUMNS)
        continue;
      d = g_new0 (RkDateColumn, 1);
      d->column = (guint) column;
      d->format = get_string (o, "format");
      d->label = get_string (o, "label");
      d->ambiguous = get_bool (o, "ambiguous");
      g_ptr_array_add (r->dates, d);
    }
  r->skipped = g_ptr_array_new_with_free_func (skipped_line_free);
  arr = get_array (obj, "skipped");
  for (guint i = 0; arr != NULL && i < json_array_get_length (arr) && i < MAX_READING_LIST; i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      RkSkippedLine *l;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      l = g_new0 (RkSkippedLine, 1);
      l->line = (guint) MIN (get_count (json_node_get_object (n), "line"), G_MAXUINT);
      l->text = get_string (json_node_get_object (n), "text");
      l->why = get_string (json_node_get_object (n), "why");
      g_ptr_array_add (r->skipped, l);
    }
  r->doubts = g_ptr_array_new_with_free_func (doubt_free);
  arr = get_array (obj, "unsure");
  for (guint i = 0; arr != NULL && i < json_array_get_length (arr) && i < MAX_READING_LIST; i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      RkReadingDoubt *d;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      d = g_new0 (RkReadingDoubt, 1);
      d->what = get_string (json_node_get_object (n), "what");
      d->note = get_string (json_node_get_object (n), "note");
      if (d->what == NULL || d->note == NULL)
        {
          doubt_free (d);
          continue;
        }
      g_ptr_array_add (r->doubts, d);
    }
  return r;
}

static RkFileProfile *
parse_file (JsonNode *node)
{
  JsonObject *obj = json_node_get_object (node);
  g_autofree char *name = get_string (obj, "name");
  g_autofree char *kind = get_string (obj, "kind");
  RkFileProfile *p = file_profile_new (name ? name : "");
  JsonArray *tables;

  p->kind = rk_enum_from_nick (RK_TYPE_FILE_KIND, kind, RK_FILE_KIND_UNKNOWN);
  p->size = get_count (obj, "size");
  p->error = get_string (obj, "error");
  p->encoding = get_string (obj, "encoding");
  p->delimiter = get_string (obj, "delimiter");
  p->decimal = get_string (obj, "decimal");
  p->read_hint = get_string (obj, "read_hint");
  p->sheets = (guint) MIN (get_count (obj, "sheets"), G_MAXUINT);
  p->pages = (guint) MIN (get_count (obj, "pages"), G_MAXUINT);
  p->text_layer = get_bool (obj, "text_layer");
  p->page_text = get_strv (obj, "page_text", 5);
  p->lines = get_count (obj, "lines");
  p->first_lines = get_strv (obj, "first_lines", 20);
  p->notes = get_strv (obj, "notes", 16);
  {
    const char *engine = NULL;

    /* Only the exact word, not a cleaned one: anything else is the
     * ordinary pandas frame. */
    if (!rk_json_get_string (obj, "engine", 16, RK_JSON_OPTIONAL, &engine, NULL))
      engine = NULL;
    p->engine = g_strcmp0 (engine, "dask") == 0 ? RK_ENGINE_DASK : RK_ENGINE_PANDAS;
    p->large = get_bool (obj, "large") && p->engine == RK_ENGINE_DASK;
    p->memory_estimate = get_count (obj, "memory_estimate");
    p->memory_limit = get_count (obj, "memory_limit");
  }
  {
    JsonNode *reading = json_object_get_member (obj, "reading");

    if (reading != NULL && JSON_NODE_HOLDS_OBJECT (reading))
      p->reading = parse_reading (json_node_get_object (reading));
  }
  tables = get_array (obj, "tables");
  for (guint i = 0; tables != NULL && i < json_array_get_length (tables) && i < MAX_TABLES; i++)
    {
      JsonNode *n = json_array_get_element (tables, i);

      if (JSON_NODE_HOLDS_OBJECT (n))
        g_ptr_array_add (p->tables, parse_table (json_node_get_object (n)));
    }
  p->raw_json = json_to_string (node, FALSE);
  return p;
}

GPtrArray *
rk_profile_parse (const char  *data,
                  gsize        len,
                  GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) out = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonArray *files;
  double version = 0;

  if (len > RK_PROFILE_MAX_JSON)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   _("The file profile is larger than %u bytes."), (guint) RK_PROFILE_MAX_JSON);
      return NULL;
    }
  root = rk_json_parse (data, (gssize) len, RK_PROFILE_MAX_JSON, MAX_DEPTH, RK_JSON_SCAN_DEFAULT, &local_error);
  if (root == NULL)
    {
      g_set_error (error, RK_PARSE_ERROR, local_error->code, _("The file profile is not valid JSON: %s"),
                   local_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    goto malformed;
  if (!get_number (json_node_get_object (root), "version", &version) || version != 1)
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED,
                           _("The file profile has an unknown version."));
      return NULL;
    }
  files = get_array (json_node_get_object (root), "files");
  if (files == NULL)
    goto malformed;

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_file_profile_free);
  for (guint i = 0; i < json_array_get_length (files) && i < MAX_FILES; i++)
    {
      JsonNode *n = json_array_get_element (files, i);

      if (!JSON_NODE_HOLDS_OBJECT (n))
        goto malformed;
      g_ptr_array_add (out, parse_file (n));
    }
  return g_steal_pointer (&out);

malformed:
  g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                       _("The file profile does not have the expected structure."));
  return NULL;
}

RkFileProfile *
rk_file_profile_parse_one (const char *json)
{
  g_autofree char *doc = NULL;
  g_autoptr(GPtrArray) files = NULL;

  if (json == NULL || *json != '{')
    return NULL;
  doc = g_strdup_printf ("{\"version\": 1, \"files\": [%s]}", json);
  files = rk_profile_parse (doc, strlen (doc), NULL);
  /* @json may close the array itself and add a second file: not one */
  if (files == NULL || files->len != 1)
    return NULL;
  return rk_file_profile_copy (files->pdata[0]);
}

/* -- rendering ------------------------------------------------------------ */

/* One line: line breaks and tabs shown as visible escapes. */
static void
append_inline (GString    *s,
               const char *text,
               gsize       max)
{
  gsize start = s->len;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      if (s->len - start >= max)
        {
          g_string_append (s, "…");
          return;
        }
      if (*p == '\n')
        g_string_append (s, "\\n");
      else if (*p == '\r')
        g_string_append (s, "\\r");
      else if (*p == '\t')
        g_string_append (s, "\\t");
      else
        g_string_append_unichar (s, g_utf8_get_char (p));
    }
}

/* Several lines, each indented, at most @max_lines and about @max bytes:
 * page text keeps its line breaks instead of showing "\n". */
static void
append_block (GString    *s,
              const char *text,
              gsize       max,
              guint       max_lines)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  gsize start = s->len;
  guint shown = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      if (*lines[i] == '\0')
        continue;
      if (shown == max_lines || s->len - start >= max)
        {
          g_string_append (s, "  …\n");
          return;
        }
      g_string_append (s, "  ");
      append_inline (s, lines[i], MAX (40, max - MIN (max, s->len - start)));
      g_string_append_c (s, '\n');
      shown++;
    }
}

static void
append_size (GString *s,
             guint64  size)
{
  g_autofree char *h = g_format_size (size);

  g_string_append (s, h);
}

static void
append_number (GString *s,
               double   v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* Whole numbers exactly (92433800, not 9.24338e+07); large ones with
   * one decimal rather than an exponent. */
  if (fabs (v) < 1e15 && v == floor (v))
    g_string_append_printf (s, "%" G_GINT64_FORMAT, (gint64) v);
  else if (fabs (v) >= 1e5 && fabs (v) < 1e15)
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.1f", v));
  else
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

static void
append_column (GString               *s,
               const RkColumnProfile *c,
               guint                  samples)
{
  g_string_append (s, "- ");
  append_inline (s, c->name, 80);
  g_string_append_printf (s, ": %s", rk_column_type_to_string (c->type));
  if (c->missing > 0)
    g_string_append_printf (s, ", %" G_GUINT64_FORMAT " missing", c->missing);
  if (c->has_stats)
    {
      g_string_append (s, ", min ");
      append_number (s, c->min);
      g_string_append (s, ", max ");
      append_number (s, c->max);
      g_string_append (s, ", mean ");
      append_number (s, c->mean);
      if (c->has_std)
        {
          g_string_append (s, ", std ");
          append_number (s, c->std);
        }
    }
  else if (c->min_text != NULL && c->max_text != NULL)
    {
      g_string_append (s, ", ");
      append_inline (s, c->min_text, 40);
      g_string_append (s, " to ");
      append_inline (s, c->max_text, 40);
    }
  if (c->unique >= 0 && c->type != RK_COLUMN_INTEGER && c->type != RK_COLUMN_FLOAT)
    g_string_append_printf (s, ", %" G_GINT64_FORMAT " distinct", c->unique);
  if (c->category)
    g_string_append (s, ", loaded as pandas category");
  if (c->values != NULL && c->values[0] != NULL && samples > 0)
    {
      g_string_append (s, " (");
      for (guint i = 0; c->values[i] != NULL && i < samples; i++)
        {
          if (i > 0)
            g_string_append (s, ", ");
          append_inline (s, c->values[i], 30);
        }
      if (g_strv_length (c->values) > samples)
        g_string_append (s, ", …");
      g_string_append (s, ")");
    }
  g_string_append_c (s, '\n');
}

static void
append_table (GString              *s,
              const RkTableProfile *t,
              gsize                 budget_end,
              gboolean              has_header_row,
              guint                 samples)
{
  if (t->name != NULL)
    {
      g_string_append (s, t->page > 0 ? "Table on " : "Sheet “");
      append_inline (s, t->name, 80);
      g_string_append (s, t->page > 0 ? ": " : "”: ");
    }
  else
    g_string_append (s, "Table: ");
  g_string_append_printf (s, "%s%" G_GUINT64_FORMAT " rows × %u columns%s",
                          t->rows_approximate ? "about " : "", t->rows, t->n_columns,
                          t->n_columns == 0 || !has_header_row ? ""
                          : (t->header ? ", first row is the header" : ", no header row"));
  if (t->rows_sampled > 0)
    g_string_append_printf (s, " (statistics from a sample: the first %" G_GUINT64_FORMAT " rows)", t->rows_sampled);
  g_string_append_c (s, '\n');

  for (guint i = 0; i < t->columns->len; i++)
    {
      if (s->len > budget_end)
        {
          g_string_append_printf (s, "- … and %u more columns\n", t->columns->len - i);
          break;
        }
      append_column (s, g_ptr_array_index (t->columns, i), samples);
    }
  if (t->n_columns > t->columns->len && s->len <= budget_end)
    g_string_append_printf (s, "- … and %u more columns\n", t->n_columns - t->columns->len);

  if (t->head->len > 0 && samples > 0 && s->len < budget_end)
    {
      g_string_append (s, "First rows:\n");
      if (t->header || !has_header_row)
        {
          for (guint j = 0; j < t->columns->len && j < 20; j++)
            {
              const RkColumnProfile *c = g_ptr_array_index (t->columns, j);

              g_string_append (s, j > 0 ? " | " : "");
              append_inline (s, c->name, 30);
            }
          g_string_append_c (s, '\n');
        }
      for (guint i = 0; i < t->head->len && i < samples && s->len < budget_end; i++)
        {
          GStrv row = g_ptr_array_index (t->head, i);

          for (guint j = 0; row[j] != NULL && j < 20; j++)
            {
              g_string_append (s, j > 0 ? " | " : "");
              append_inline (s, row[j], 30);
            }
          g_string_append_c (s, '\n');
        }
    }
}

static const char *
kind_label (RkFileKind kind)
{
  switch (kind)
    {
    case RK_FILE_KIND_CSV: return "CSV";
    case RK_FILE_KIND_TSV: return "TSV";
    case RK_FILE_KIND_XLSX: return "Excel workbook (XLSX)";
    case RK_FILE_KIND_XLS: return "Excel 97-2003 workbook (XLS)";
    case RK_FILE_KIND_ODS: return "OpenDocument spreadsheet (ODS)";
    case RK_FILE_KIND_PDF: return "PDF";
    case RK_FILE_KIND_TEXT: return "text";
    case RK_FILE_KIND_JSON: return "JSON";
    case RK_FILE_KIND_UNKNOWN:
    default: return "file";
    }
}

static const char *
delimiter_label (const char *d)
{
  if (g_strcmp0 (d, "\t") == 0)
    return "tab";
  if (g_strcmp0 (d, ",") == 0)
    return "comma";
  if (g_strcmp0 (d, ";") == 0)
    return "semicolon";
  if (g_strcmp0 (d, "|") == 0)
    return "pipe";
  if (g_strcmp0 (d, " ") == 0)
    return "space";
  return "other";
}

static const char *
column_name (const RkFileProfile *self,
             guint                column)
{
  const RkTableProfile *t = self->tables->len > 0 ? g_ptr_array_index (self->tables, 0) : NULL;

  if (t != NULL && column < t->columns->len)
    return ((const RkColumnProfile *) g_ptr_array_index (t->columns, column))->name;
  return NULL;
}

char *
rk_file_profile_describe_reading (const RkFileProfile *self)
{
  const RkFileReading *r;
  g_autoptr(GPtrArray) parts = NULL;
  guint other_skipped = 0;

  g_return_val_if_fail (self != NULL, NULL);

  r = self->reading;
  if (r == NULL)
    return NULL;
  parts = g_ptr_array_new_with_free_func (g_free);
  if (g_strcmp0 (r->compression, "zip") == 0)
    {
      /* The member's own name may hold "../": show its base name only. */
      g_autofree char *base = g_path_get_basename (r->member ? r->member : "?");

      g_ptr_array_add (parts, g_strdup_printf (_("the file “%s” inside a ZIP archive"), base));
    }
  else if (r->compression != NULL)
    g_ptr_array_add (parts, g_strdup_printf (_("%s-compressed"), r->compression));

  if (g_strcmp0 (r->format, "csv") == 0)
    {
      if (r->whitespace)
        g_ptr_array_add (parts, g_strdup (_("columns separated by spaces")));
      else
        g_ptr_array_add (parts, g_strdup_printf (_("%s-separated"), delimiter_label (r->delimiter)));
      g_ptr_array_add (parts, g_strdup (r->header ? _("first row is the header") : _("no header row")));
      if (r->comment_lines > 0)
        g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u comment line skipped",
                                                              "%u comment lines skipped", r->comment_lines),
                                                 r->comment_lines));
      for (guint i = 0; i < r->skipped->len; i++)
        {
          const RkSkippedLine *l = g_ptr_array_index (r->skipped, i);

          if (g_strcmp0 (l->why, "comment") == 0)
            continue;
          if (other_skipped++ >= 3)
            continue;
          g_ptr_array_add (parts, g_strdup_printf (_("line %u (%s) skipped as %s"), l->line,
                                                   l->text ? l->text : "", l->why ? l->why : "?"));
        }
      if (r->comment != NULL && r->comment_lines == 0)
        g_ptr_array_add (parts, g_strdup_printf (_("lines starting with %s skipped"), r->comment));
      if (r->quotes_are_text)
        g_ptr_array_add (parts, g_strdup (_("quote marks read as text")));
      else if (g_strcmp0 (r->quotechar, "'") == 0)
        g_ptr_array_add (parts, g_strdup (_("text quoted with '")));
      if (g_strcmp0 (r->decimal, ",") == 0)
        g_ptr_array_add (parts, g_strdup (_("decimal comma")));
    }
  else if (r->sheet != NULL)
    g_ptr_array_add (parts, g_strdup_printf (_("only the sheet “%s”"), r->sheet));
  else if (self->tables->len > 1)
    g_ptr_array_add (parts, g_strdup_printf (_("%u tables"), self->tables->len));
  if (g_strcmp0 (r->format, "csv") == 0 || g_strcmp0 (r->format, "json") == 0)
    {
      for (guint i = 0; i < r->dates->len && i < 8; i++)
        {
          const RkDateColumn *d = g_ptr_array_index (r->dates, i);
          const char *name = column_name (self, d->column);
          g_autofree char *fallback = g_strdup_printf (_("column %u"), d->column + 1);

          g_ptr_array_add (parts, g_strdup_printf (_("dates in “%s” written %s"), name ? name : fallback,
                                                   d->label ? d->label : d->format ? d->format : "?"));
        }
      if (r->dates->len > 8)
        g_ptr_array_add (parts, g_strdup_printf (_("and %u more date columns"), r->dates->len - 8));
    }
  if (parts->len == 0)
    return NULL;
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (", ", (char **) parts->pdata);
}

gboolean
rk_file_profile_get_alternative (const RkFileProfile *self,
                                 RkProfileOptions    *options,
                                 char               **label)
{
  const RkFileReading *r;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (options != NULL, FALSE);

  r = self->reading;
  for (guint i = 0; r != NULL && i < r->doubts->len; i++)
    {
      const RkReadingDoubt *d = g_ptr_array_index (r->doubts, i);

      if (g_strcmp0 (d->what, "header") == 0)
        {
          options->header = r->header ? RK_PROFILE_HEADER_NO : RK_PROFILE_HEADER_YES;
          if (label != NULL)
            *label = g_strdup (r->header ? _("Read the first row as data")
                                         : _("Read the first row as column names"));
          return TRUE;
        }
      if (g_strcmp0 (d->what, "metadata") == 0 && r->skip_lines > 0)
        {
          /* The metadata line is the last line skipped: keep it. */
          options->skip_lines = (int) r->skip_lines - 1;
          if (label != NULL)
            *label = g_strdup_printf (_("Keep line %u as part of the table"), r->skip_lines);
          return TRUE;
        }
    }
  return FALSE;
}

char *
rk_file_profile_to_prompt (const RkFileProfile *self,
                           gsize                max_bytes,
                           guint                samples)
{
  GString *s = g_string_new ("File “");
  /* Leave room for the closing lines (hint, notes) after the tables. */
  gsize room = self->engine == RK_ENGINE_DASK ? 800 : 300;
  gsize budget_end = max_bytes > room + 100 ? max_bytes - room : max_bytes;

  g_return_val_if_fail (self != NULL, NULL);

  append_inline (s, self->name, 200);
  g_string_append (s, "”");
  if (self->error != NULL)
    {
      g_string_append (s, ": ");
      append_inline (s, self->error, 300);
      g_string_append_c (s, '\n');
      return g_string_free (s, FALSE);
    }
  g_string_append_printf (s, " (%s, ", kind_label (self->kind));
  append_size (s, self->size);
  if (self->encoding != NULL)
    g_string_append_printf (s, ", %s", self->encoding);
  if (self->delimiter != NULL && self->kind != RK_FILE_KIND_TSV)
    g_string_append_printf (s, ", %s-separated", delimiter_label (self->delimiter));
  if (g_strcmp0 (self->decimal, ",") == 0)
    g_string_append (s, ", decimal comma");
  if (self->sheets > 0)
    g_string_append_printf (s, ", %u sheet%s", self->sheets, self->sheets == 1 ? "" : "s");
  if (self->kind == RK_FILE_KIND_PDF)
    g_string_append_printf (s, ", %u page%s", self->pages, self->pages == 1 ? "" : "s");
  if (self->kind == RK_FILE_KIND_TEXT)
    g_string_append_printf (s, ", %" G_GUINT64_FORMAT " lines", self->lines);
  g_string_append (s, ")\n");

  for (guint i = 0; i < self->tables->len; i++)
    {
      if (s->len > budget_end)
        {
          g_string_append_printf (s, "… and %u more tables\n", self->tables->len - i);
          break;
        }
      /* JSON records name their fields: there is no header row to speak of. */
      append_table (s, g_ptr_array_index (self->tables, i), budget_end, self->kind != RK_FILE_KIND_JSON, samples);
    }

  if (self->kind == RK_FILE_KIND_PDF && self->page_text != NULL)
    for (guint i = 0; self->page_text[i] != NULL && s->len < budget_end; i++)
      {
        if (*self->page_text[i] == '\0')
          continue;
        g_string_append_printf (s, "Page %u text:\n", i + 1);
        append_block (s, self->page_text[i], MIN (600, budget_end - s->len), 12);
      }
  if (self->first_lines != NULL)
    for (guint i = 0; self->first_lines[i] != NULL && i < 5 && s->len < budget_end; i++)
      {
        g_string_append (s, "> ");
        append_inline (s, self->first_lines[i], 160);
        g_string_append_c (s, '\n');
      }
  for (guint i = 0; self->notes != NULL && self->notes[i] != NULL && i < 4; i++)
    {
      g_string_append (s, "Note: ");
      append_inline (s, self->notes[i], 200);
      g_string_append_c (s, '\n');
    }
  if (self->reading != NULL && s->len + 120 < max_bytes)
    {
      g_autofree char *how = rk_file_profile_describe_reading (self);

      if (how != NULL)
        {
          g_string_append (s, "Read as: ");
          append_inline (s, how, MAX (80, MIN (300, budget_end > s->len ? budget_end - s->len : 0)));
          g_string_append_c (s, '\n');
        }
    }
  if (self->read_hint != NULL)
    {
      g_string_append (s, "Load: ");
      append_inline (s, self->read_hint, 200);
      if (self->reading != NULL && self->reading->sheet == NULL && self->tables->len > 1 &&
          g_str_has_prefix (self->read_hint, "reckon.load("))
        g_string_append (s, " (a dict of DataFrames by sheet or page; sheet=NAME for one)");
      g_string_append_c (s, '\n');
    }
  if (self->engine == RK_ENGINE_DASK)
    {
      g_string_append (s, "Lazy: this table is too big for memory");
      if (self->memory_estimate > 0 && self->memory_limit > 0)
        {
          g_autofree char *need = g_format_size_full (self->memory_estimate, G_FORMAT_SIZE_IEC_UNITS);
          g_autofree char *limit = g_format_size_full (self->memory_limit, G_FORMAT_SIZE_IEC_UNITS);

          g_string_append_printf (s, " (about %s, over a third of the sandbox's %s limit)", need, limit);
        }
      g_string_append (s, ", so reckon.load returns a lazy Dask DataFrame (dask.dataframe, read in parts, threaded "
                          "scheduler), not pandas. Write pandas-style code on it and call .compute() only on small "
                          "results (a groupby aggregate, value_counts, a filtered .head(20)); .head(n) computes by "
                          "itself; reckon.compute(x) gives pandas for a small lazy result. Never .compute() the "
                          "whole frame or convert it to pandas; there is no .iloc row access, and each .compute() "
                          "or len(df) reads the whole file once, so compute several results together with "
                          "dask.compute(a, b).\n");
    }
  return g_string_free (s, FALSE);
}

char *
rk_profiles_to_prompt (GPtrArray *profiles,
                       gsize      max_bytes,
                       guint      samples)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < profiles->len; i++)
    {
      gsize left = max_bytes > s->len ? max_bytes - s->len : 0;
      /* Each file gets a fair share of what is left, so one wide workbook
       * cannot crowd out the others. */
      gsize share = left / (profiles->len - i);
      g_autofree char *one = NULL;

      if (share < 120)
        {
          /* Name them at least, so the model knows they exist. */
          g_string_append_printf (s, "… and %u more file%s, not described to save space:",
                                  profiles->len - i, profiles->len - i == 1 ? "" : "s");
          for (guint j = i; j < profiles->len && j < i + 20; j++)
            {
              g_string_append (s, j == i ? " " : ", ");
              append_inline (s, ((RkFileProfile *) g_ptr_array_index (profiles, j))->name, 80);
            }
          g_string_append (s, profiles->len - i > 20 ? ", …\n" : "\n");
          break;
        }
      one = rk_file_profile_to_prompt (g_ptr_array_index (profiles, i), share, samples);
      if (i > 0)
        g_string_append_c (s, '\n');
      g_string_append (s, one);
    }
  return g_string_free (s, FALSE);
}

/* -- running -------------------------------------------------------------- */

typedef struct
{
  RkWorkspace *workspace;
  GStrv  names;
  GStrv  option_args;          /* the user's choices, as profiler arguments */
  GStrv  inputs;               /* RkProfileOptions.inputs */
  RkProfileProgressFunc progress;
  RkProfilePartialFunc  partial;
  gpointer              progress_data;
  guint64               memory_bytes;  /* RkProfileOptions.memory_bytes */
} ProfileData;

/* Where the worker thread sends progress: to the task's main context, at
 * most every PROGRESS_INTERVAL, never after the task completed. */
#define PROGRESS_INTERVAL (100 * 1000)

typedef struct
{
  GTask                 *task;
  RkProfileProgressFunc  func;
  gpointer               data;
  gint64                 last_post;
  RkProfilePartialFunc   partial;
  GHashTable            *partial_sent;  /* names: one partial a file, over every run */
} ProgressSink;

typedef struct
{
  GTask   *task;
  char    *name;
  guint64  done, total;
} ProgressMessage;

/* Whether the task's caller still wants news from the worker thread. */
static gboolean
task_listening (GTask *task)
{
  return !g_task_get_completed (task) && !g_cancellable_is_cancelled (g_task_get_cancellable (task));
}

/* Runs @cb (@message) in @task's main context, from the worker thread. */
static void
post_to_task (GTask          *task,
              GSourceFunc     cb,
              gpointer        message,
              GDestroyNotify  message_free,
              const char     *what)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, cb, message, message_free);
  g_source_set_static_name (source, what);
  g_source_attach (source, g_task_get_context (task));
}

static void
progress_message_free (gpointer data)
{
  ProgressMessage *m = data;

  g_object_unref (m->task);
  g_free (m->name);
  g_free (m);
}

static gboolean
progress_message_cb (gpointer data)
{
  ProgressMessage *m = data;
  ProfileData *d = g_task_get_task_data (m->task);

  if (task_listening (m->task) && d->progress != NULL)
    d->progress (m->name, m->done, m->total, d->progress_data);
  return G_SOURCE_REMOVE;
}

static void
progress_post (ProgressSink *sink,
               const char   *name,
               guint64       done,
               guint64       total)
{
  gint64 now = g_get_monotonic_time ();
  ProgressMessage *m;

  if (sink == NULL || sink->func == NULL || (sink->last_post != 0 && now - sink->last_post < PROGRESS_INTERVAL))
    return;
  sink->last_post = now;
  m = g_new0 (ProgressMessage, 1);
  m->task = g_object_ref (sink->task);
  m->name = g_strdup (name);
  m->done = done;
  m->total = total;
  post_to_task (sink->task, progress_message_cb, m, progress_message_free, "[reckon] profile progress");
}

typedef struct
{
  GTask         *task;
  RkFileProfile *profile;
} PartialMessage;

static void
partial_message_free (gpointer data)
{
  PartialMessage *m = data;

  g_object_unref (m->task);
  rk_file_profile_free (m->profile);
  g_free (m);
}

static gboolean
partial_message_cb (gpointer data)
{
  PartialMessage *m = data;
  ProfileData *d = g_task_get_task_data (m->task);

  if (task_listening (m->task) && d->partial != NULL)
    d->partial (m->profile, d->progress_data);
  return G_SOURCE_REMOVE;
}

/* Takes @profile: to the caller's main context, once per file. */
static void
partial_post (ProgressSink  *sink,
              RkFileProfile *profile)
{
  PartialMessage *m;

  if (sink == NULL || sink->partial == NULL || g_hash_table_contains (sink->partial_sent, profile->name))
    {
      rk_file_profile_free (profile);
      return;
    }
  g_hash_table_add (sink->partial_sent, g_strdup (profile->name));
  m = g_new0 (PartialMessage, 1);
  m->task = g_object_ref (sink->task);
  m->profile = profile;
  post_to_task (sink->task, partial_message_cb, m, partial_message_free, "[reckon] partial profile");
}

/* A progress line of one run: its index names one of the run's files. */
typedef struct
{
  ProgressSink       *sink;
  const char * const *names;
} RunProgress;

static void
run_progress_cb (guint    index,
                 guint64  done,
                 guint64  total,
                 gpointer user_data)
{
  RunProgress *rp = user_data;

  progress_post (rp->sink, rp->names[index], done, total);
}

/* A partial profile of one run: named as the host named the file. */
static void
run_partial_cb (guint          index,
                RkFileProfile *profile,
                gpointer       user_data)
{
  RunProgress *rp = user_data;

  g_free (profile->name);
  profile->name = g_strdup (rp->names[index]);
  partial_post (rp->sink, profile);
}

static void
profile_data_free (gpointer data)
{
  ProfileData *d = data;

  g_clear_object (&d->workspace);
  g_strfreev (d->names);
  g_strfreev (d->option_args);
  g_strfreev (d->inputs);
  g_free (d);
}

static const char * const delimiter_names[] = { "comma", "semicolon", "tab", "pipe", "space", NULL };

/* The profiler's arguments for @options (--header=, --delimiter=,
 * --sheet=, --skip=), checked: one sentence in @error when unusable. */
static GStrv
options_to_args (const RkProfileOptions  *options,
                 GError                 **error)
{
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  if (options == NULL)
    return g_strv_builder_end (b);
  if (options->stage_readings)
    g_strv_builder_add (b, "--stage-readings");
  if (options->header == RK_PROFILE_HEADER_YES)
    g_strv_builder_add (b, "--header=yes");
  else if (options->header == RK_PROFILE_HEADER_NO)
    g_strv_builder_add (b, "--header=no");
  if (options->delimiter != NULL)
    {
      const char *d = options->delimiter;
      gboolean named = g_strv_contains (delimiter_names, d);

      if (!named && (!g_utf8_validate (d, -1, NULL) || g_utf8_strlen (d, -1) != 1 ||
                     strchr ("\r\n\"", d[0]) != NULL || ((guchar) d[0] < 0x20 && d[0] != '\t')))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("The delimiter must be one character, or comma, semicolon, tab, pipe or space (not “%s”)."),
                       d);
          return NULL;
        }
      g_autofree char *arg = g_strdup_printf ("--delimiter=%s", strcmp (d, "\t") == 0 ? "tab" : d);

      g_strv_builder_add (b, arg);
    }
  if (options->sheet != NULL)
    {
      if (!g_utf8_validate (options->sheet, -1, NULL) || strlen (options->sheet) > 200 || *options->sheet == '\0')
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("The sheet name must be between 1 and 200 bytes of text."));
          return NULL;
        }
      g_autofree char *arg = g_strdup_printf ("--sheet=%s", options->sheet);

      g_strv_builder_add (b, arg);
    }
  if (options->skip_lines >= 0)
    {
      if (options->skip_lines > 1000000)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("At most a million lines can be skipped before the table."));
          return NULL;
        }
      g_autofree char *arg = g_strdup_printf ("--skip=%d", options->skip_lines);

      g_strv_builder_add (b, arg);
    }
  return g_strv_builder_end (b);
}

/* Reads stdout and stderr together (so neither pipe can fill and stall the
 * child), keeping at most @out_cap and MAX_STDERR bytes. Returns FALSE when
 * cancelled or when stdout went over its cap (the child is then killed). */
static gboolean
drain (GSubprocess             *proc,
       RkProfileOutputReader   *out,
       RkProfileProgressReader *err,
       guint                    timeout,
       GCancellable            *cancellable,
       gboolean                *too_large)
{
  int fds[2] = {
    g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (g_subprocess_get_stdout_pipe (proc))),
    g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (g_subprocess_get_stderr_pipe (proc))),
  };
  gboolean open_[2] = { TRUE, TRUE };
  GPollFD cancel_fd = { 0, };
  gboolean have_cancel = cancellable != NULL && g_cancellable_make_pollfd (cancellable, &cancel_fd);
  gint64 deadline = g_get_monotonic_time () + (gint64) (timeout + 30) * G_USEC_PER_SEC;
  guint8 buf[65536];
  gboolean ok = TRUE;

  *too_large = FALSE;
  while (open_[0] || open_[1])
    {
      struct pollfd p[3];
      int n = 0, idx[2] = { -1, -1 };
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;

      for (int i = 0; i < 2; i++)
        if (open_[i])
          {
            idx[i] = n;
            p[n].fd = fds[i];
            p[n].events = POLLIN;
            p[n++].revents = 0;
          }
      if (have_cancel)
        {
          p[n].fd = cancel_fd.fd;
          p[n].events = POLLIN;
          p[n++].revents = 0;
        }
      if (left <= 0)
        {
          /* The sandbox's own timeout should have fired long ago. */
          g_subprocess_force_exit (proc);
          ok = FALSE;
          break;
        }
      if (poll (p, n, (int) MIN (left, 1000)) < 0 && errno != EINTR)
        break;
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_subprocess_send_signal (proc, SIGKILL);
          ok = FALSE;
          break;
        }
      for (int i = 0; i < 2; i++)
        {
          ssize_t r;

          if (idx[i] < 0 || (p[idx[i]].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
            continue;
          r = read (fds[i], buf, sizeof buf);
          if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
          if (r <= 0)
            {
              open_[i] = FALSE;
              continue;
            }
          if (i == 0)
            {
              /* Partial lines go to the caller as they come; a line over
               * the cap stops the run. */
              if (!_rk_profile_output_reader_feed (out, buf, r))
                {
                  *too_large = TRUE;
                  g_subprocess_send_signal (proc, SIGKILL);
                  ok = FALSE;
                  goto done;
                }
            }
          else
            /* Progress lines are taken out; the rest is kept, capped. */
            rk_profile_progress_reader_feed (err, buf, r);
        }
    }
done:
  if (ok)
    _rk_profile_output_reader_finish (out);
  rk_profile_progress_reader_finish (err);
  if (have_cancel)
    g_cancellable_release_fd (cancellable);
  return ok;
}

/* The wall-clock limit of a run: profile_timeout (60 s) plus 30 s for each
 * GB of the files profiled (a cold 10 GB CSV is read at the disk's speed,
 * about 70 s at 150 MB/s), at most an hour. */
#define TIMEOUT_PER_GB 30
#define TIMEOUT_MAX    3600

static guint
profile_timeout_for (RkWorkspace        *workspace,
                     const char * const *names,
                     guint               n_names)
{
  guint64 total = 0;
  guint64 extra;
  int dir = rk_workspace_dup_fd (workspace, NULL);

  for (guint i = 0; dir >= 0 && i < n_names; i++)
    {
      struct stat st;

      /* No follow: a link a cell planted in the workspace adds nothing. */
      if (fstatat (dir, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG (st.st_mode))
        total += (guint64) st.st_size;
    }
  if (dir >= 0)
    close (dir);
  extra = (total * TIMEOUT_PER_GB + 999999999) / 1000000000;
  return (guint) MIN ((guint64) profile_timeout + extra, MAX (TIMEOUT_MAX, (guint64) profile_timeout));
}

/* Runs the profiler once over @names. Returns one profile per name, or NULL
 * with *@failure set to the sentence for what went wrong (and @error set only
 * when cancelled). */
static GPtrArray *
run_profiler (RkWorkspace        *workspace,
              const char * const *inputs,
              const char * const *option_args,
              const char * const *names,
              guint               n_names,
              guint64             memory_bytes,
              ProgressSink       *sink,
              GCancellable       *cancellable,
              char              **failure,
              GError            **error)
{
  g_autoptr(RkSandboxChild) child = NULL;
  RunProgress run_progress = { sink, names };
  RkProfileProgressReader err_reader;
  RkProfileOutputReader out_reader;
  GSubprocess *proc;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GByteArray) err = g_byte_array_new ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *err_text = NULL;
  g_autoptr(GPtrArray) parsed = NULL;
  gboolean too_large = FALSE, ok;
  guint timeout = profile_timeout_for (workspace, names, n_names);
  int status;

  RkSandboxSpec spec = { 0, };

  *failure = NULL;
  /* The command line is rk-sandbox-launcher's (one for the kernel and the
   * profiler); paths inside are the backend's. */
  g_ptr_array_add (argv, g_strdup (rk_python_path ()));
  g_ptr_array_add (argv, g_strdup ("-I"));
  g_ptr_array_add (argv, g_strdup ("-B"));
  g_ptr_array_add (argv, rk_sandbox_launcher_kernel_path ("reckon_profile.py"));
  for (guint i = 0; option_args != NULL && option_args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (option_args[i]));
  for (guint i = 0; i < n_names; i++)
    g_ptr_array_add (argv, rk_sandbox_launcher_workspace_path (workspace, names[i]));
  g_ptr_array_add (argv, NULL);

  spec.workspace = workspace;
  spec.inputs = inputs;
  spec.memory_bytes = memory_bytes > 0 ? memory_bytes : profile_memory;
  spec.timeout_seconds = timeout;
  spec.max_procs = 16;
  spec.status_fd = -1;
  spec.flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE;
  spec.argv = (const char * const *) argv->pdata;
  child = rk_sandbox_launcher_spawn (&spec, &local_error);
  if (child == NULL)
    {
      g_debug ("cannot start the sandbox: %s", local_error->message);
      /* No backend: its one sentence says why; nothing ran. */
      if (g_error_matches (local_error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_NO_BACKEND))
        *failure = g_strdup (local_error->message);
      else
        *failure = g_strdup (_("The sandbox could not be started, so the file was not profiled."));
      return NULL;
    }
  proc = rk_sandbox_child_get_process (child);

  rk_profile_progress_reader_init (&err_reader, n_names, err, MAX_STDERR, run_progress_cb, &run_progress);
  _rk_profile_output_reader_init (&out_reader, n_names, out, RK_PROFILE_MAX_JSON, run_partial_cb, &run_progress);
  ok = drain (proc, &out_reader, &err_reader, timeout, cancellable, &too_large);
  _rk_profile_output_reader_clear (&out_reader);
  if (!ok)
    {
      g_subprocess_wait (proc, NULL, NULL);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      *failure = g_strdup (too_large ? _("The profile of this file was too large to read.")
                                     : _("Profiling this file took too long, so it was stopped."));
      return NULL;
    }
  g_subprocess_wait (proc, NULL, NULL);
  g_byte_array_append (err, (const guint8 *) "", 1);
  err_text = g_strndup ((const char *) err->data, err->len);

  status = rk_sandbox_launcher_exit_status (proc);

  if (status == 0 && out->len > 0)
    {
      parsed = rk_profile_parse ((const char *) out->data, out->len, &local_error);
      if (parsed != NULL && parsed->len == n_names)
        {
          for (guint i = 0; i < n_names; i++)
            {
              RkFileProfile *p = g_ptr_array_index (parsed, i);

              g_free (p->name);
              p->name = g_strdup (names[i]);
            }
          return g_steal_pointer (&parsed);
        }
      g_debug ("profile unreadable: %s", local_error ? local_error->message : "wrong number of files");
      *failure = g_strdup (_("The profiler's answer could not be read."));
      return NULL;
    }

  g_debug ("profiler: status %d, stderr: %s", status, err_text);
  if (status == 124)
    {
      *failure = g_strdup (_("Profiling this file took too long, so it was stopped."));
      return NULL;
    }
  {
    RkSandboxLimit limit = rk_sandbox_launcher_find_limit (NULL, 0, err_text, NULL, NULL);

    if (limit != RK_SANDBOX_LIMIT_NONE)
      {
        *failure = g_strdup_printf (_("Profiling this file was stopped at the sandbox's “%s” limit."),
                                    rk_sandbox_limit_to_name (limit));
        return NULL;
      }
  }
  if (status == 125)
    {
      g_autofree char *why = rk_sandbox_launcher_setup_reason (err_text);

      *failure = g_strdup_printf (_("The sandbox could not be set up (%s), so the file was not profiled."),
                                  why ? why : _("no reason given"));
    }
  else if (status == 126 || status == 127)
    *failure = g_strdup (_("The profiler could not be started inside the sandbox."));
  else if (status == 128 + SIGKILL || status == 128 + SIGSEGV || status == 128 + SIGABRT ||
           strstr (err_text, "MemoryError") != NULL || strstr (err_text, "Cannot allocate memory") != NULL)
    *failure = g_strdup (_("This file needs more memory than the sandbox allows, so it was not profiled."));
  else if (status == 128 + SIGXCPU)
    *failure = g_strdup (_("Profiling this file used too much processor time, so it was stopped."));
  else
    *failure = g_strdup_printf (_("The profiler stopped unexpectedly (status %d)."), status);
  return NULL;
}

static GPtrArray *
profile_files_args (RkWorkspace         *workspace,
                    const char * const  *inputs,
                    const char * const  *names,
                    const char * const  *option_args,
                    guint64              memory_bytes,
                    ProgressSink        *sink,
                    GCancellable        *cancellable,
                    GError             **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_file_profile_free);
  g_autoptr(GPtrArray) valid = g_ptr_array_new ();
  g_autoptr(GPtrArray) all_inputs = g_ptr_array_new ();
  g_autoptr(GPtrArray) batch = NULL;
  g_autofree char *failure = NULL;
  guint n = names != NULL ? g_strv_length ((GStrv) names) : 0;
  guint next = 0;
  gboolean batch_out_of_memory = FALSE;

  g_ptr_array_add (all_inputs, NULL);

  for (guint i = 0; i < n; i++)
    if (rk_path_is_beneath (names[i]) && strchr (names[i], '/') == NULL)
      g_ptr_array_add (valid, (gpointer) names[i]);
  /* The files profiled are inputs too, whatever the caller named. */
  for (guint i = 0; inputs != NULL && inputs[i] != NULL; i++)
    if (!g_strv_contains ((const char * const *) all_inputs->pdata, inputs[i]))
      g_ptr_array_insert (all_inputs, all_inputs->len - 1, (gpointer) inputs[i]);
  for (guint i = 0; i < valid->len; i++)
    if (!g_strv_contains ((const char * const *) all_inputs->pdata, g_ptr_array_index (valid, i)))
      g_ptr_array_insert (all_inputs, all_inputs->len - 1, g_ptr_array_index (valid, i));
  inputs = (const char * const *) all_inputs->pdata;

  /* Fast path: one sandbox for every file (pandas is imported once). The
   * profiler turns a bad file into an error sentence itself; only when the
   * whole run fails (a memory limit, a crash, a timeout) is each file run on
   * its own, so one hostile file cannot take the others' profiles with it. */
  if (valid->len > 1)
    {
      batch = run_profiler (workspace, inputs, option_args, (const char * const *) valid->pdata, valid->len,
                            memory_bytes, sink, cancellable, &failure, error);
      g_clear_pointer (&failure, g_free);
      if (batch == NULL && g_cancellable_is_cancelled (cancellable))
        return NULL;
      for (guint i = 0; batch != NULL && i < batch->len; i++)
        if (g_strcmp0 (((RkFileProfile *) g_ptr_array_index (batch, i))->error, ERR_MEMORY) == 0)
          batch_out_of_memory = TRUE;
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GPtrArray) one = NULL;

      if (!rk_path_is_beneath (names[i]) || strchr (names[i], '/') != NULL)
        {
          g_ptr_array_add (out, rk_file_profile_new_error (names[i], _("This file name is not allowed.")));
          continue;
        }
      if (batch != NULL)
        {
          RkFileProfile *p = g_ptr_array_index (batch, next++);

          /* After one file ran out of memory the interpreter's heap may be
           * too fragmented for the next ones: those get a run of their own. */
          if (p->error == NULL || !batch_out_of_memory)
            {
              g_ptr_array_add (out, rk_file_profile_copy (p));
              continue;
            }
        }
      one = run_profiler (workspace, inputs, option_args, &names[i], 1, memory_bytes, sink, cancellable, &failure,
                          error);
      if (one == NULL && g_cancellable_is_cancelled (cancellable))
        return NULL;
      if (one != NULL)
        g_ptr_array_add (out, g_ptr_array_steal_index (one, 0));
      else
        g_ptr_array_add (out, rk_file_profile_new_error (names[i], failure));
      g_clear_pointer (&failure, g_free);
    }
  return g_steal_pointer (&out);
}

GPtrArray *
rk_profile_files (RkWorkspace             *workspace,
                  const char * const      *names,
                  const RkProfileOptions  *options,
                  GCancellable            *cancellable,
                  GError                 **error)
{
  g_auto(GStrv) option_args = NULL;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), NULL);

  option_args = options_to_args (options, error);
  if (option_args == NULL)
    return NULL;
  return profile_files_args (workspace, options != NULL ? options->inputs : NULL, names,
                             (const char * const *) option_args, options != NULL ? options->memory_bytes : 0,
                             NULL, cancellable, error);
}

static void
profile_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  ProfileData *d = task_data;
  GError *error = NULL;
  g_autoptr(GHashTable) sent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ProgressSink sink = { task, d->progress, d->progress_data, 0, d->partial, sent };
  GPtrArray *out = profile_files_args (d->workspace, (const char * const *) d->inputs,
                                      (const char * const *) d->names,
                                      (const char * const *) d->option_args, d->memory_bytes, &sink,
                                      cancellable, &error);

  if (out == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, out, (GDestroyNotify) g_ptr_array_unref);
}

void
rk_profile_files_async (RkWorkspace             *workspace,
                        const char * const      *names,
                        const RkProfileOptions  *options,
                        RkProfileProgressFunc    progress,
                        RkProfilePartialFunc     partial,
                        gpointer                 data,
                        GCancellable            *cancellable,
                        GAsyncReadyCallback      callback,
                        gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  ProfileData *d;
  GStrv option_args;

  g_return_if_fail (RK_IS_WORKSPACE (workspace));

  task = g_task_new (NULL, cancellable, callback, user_data);
  option_args = options_to_args (options, &error);
  g_task_set_source_tag (task, rk_profile_files_async);
  if (option_args == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  d = g_new0 (ProfileData, 1);
  d->workspace = g_object_ref (workspace);
  d->names = g_strdupv ((GStrv) names);
  d->option_args = option_args;
  d->inputs = options != NULL ? g_strdupv ((GStrv) options->inputs) : NULL;
  d->progress = progress;
  d->partial = partial;
  d->progress_data = data;
  d->memory_bytes = options != NULL ? options->memory_bytes : 0;
  if (partial != NULL)
    {
      /* Only a caller that takes partial profiles asks for them: an older
       * host never sees two documents. */
      g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

      g_strv_builder_add (b, "--partial");
      g_strv_builder_addv (b, (const char **) d->option_args);
      g_strfreev (d->option_args);
      d->option_args = g_strv_builder_end (b);
    }
  g_task_set_task_data (task, d, profile_data_free);
  g_task_run_in_thread (task, profile_thread);
}

GPtrArray *
rk_profile_files_finish (GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
