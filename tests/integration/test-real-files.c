/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-real-files.c — real data files that nobody on the project wrote, taken
 * at test time from installed Debian packages, against hand-checked truths
 * (real-files.tsv): the profile, reckon.load and the load hint must agree. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>

#include "rk-import.h"
#include "rk-profile.h"
#include "rk-test-kernel.h"
#include "rk-workspace.h"

typedef struct
{
  char  *id;
  char  *package;
  char  *path;
  char  *derive;       /* "-", or gzip/bz2/xz/zip: packed here from the real file */
  char  *kind;
  char  *table;        /* index or sheet name */
  int    rows;         /* -1: not checked */
  int    columns;
  char  *header;       /* yes, no or - */
  GStrv  dates;        /* names of the date columns */
  GStrv  checks;
  char  *name;         /* in the workspace, or NULL when the file is missing */
  RkFileProfile *profile;
} Truth;

/* Lines of a file that grows with each update of its package (one a line,
 * a header first), counted here by newlines: the truth stays a count made
 * without Reckon. -1 when it cannot be read (the test then skips it). */
static int
data_lines (const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  int n = 0;

  if (!g_file_get_contents (path, &text, &len, NULL))
    return 0;
  for (gsize i = 0; i < len; i++)
    n += text[i] == '\n';
  return n;
}

static GPtrArray *truths;
static RkTestKernel kt;
static char *unusable;     /* why the sandbox cannot run here, or NULL */
static char *packed_dir;

static void
truth_free (gpointer data)
{
  Truth *t = data;

  g_free (t->id);
  g_free (t->package);
  g_free (t->path);
  g_free (t->derive);
  g_free (t->kind);
  g_free (t->table);
  g_free (t->header);
  g_strfreev (t->dates);
  g_strfreev (t->checks);
  g_free (t->name);
  g_free (t);
}

static GPtrArray *
load_truths (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT"), "tests", "integration",
                                            "real-files.tsv", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func (truth_free);

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = NULL;
      Truth *t;

      if (lines[i][0] == '#' || lines[i][0] == '\0' || g_str_has_prefix (lines[i], "id\t"))
        continue;
      f = g_strsplit (lines[i], "\t", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 11);
      t = g_new0 (Truth, 1);
      t->id = g_strdup (f[0]);
      t->package = g_strdup (f[1]);
      t->path = g_strdup (f[2]);
      t->derive = g_strdup (f[3]);
      t->kind = g_strdup (f[4]);
      t->table = g_strdup (f[5]);
      t->rows = g_str_equal (f[6], "-") ? -1 : g_str_equal (f[6], "lines-1") ? data_lines (t->path) - 1 : atoi (f[6]);
      t->columns = g_str_equal (f[7], "-") ? -1 : atoi (f[7]);
      t->header = g_strdup (f[8]);
      t->dates = g_str_equal (f[9], "-") ? g_new0 (char *, 1) : g_strsplit (f[9], ",", -1);
      t->checks = g_str_equal (f[10], "-") ? g_new0 (char *, 1) : g_strsplit (f[10], " ", -1);
      g_ptr_array_add (out, t);
    }
  return out;
}

/* The file to add: the real one, or a packed copy of it made here (the
 * bytes inside are still the package's). */
static char *
source_of (Truth *t)
{
  g_autofree char *base = g_path_get_basename (t->path);
  g_autofree char *code = NULL;
  char *out;
  const char *argv[] = { "/usr/bin/python3", "-c", NULL, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (g_str_equal (t->derive, "-"))
    return g_strdup (t->path);
  if (g_str_equal (t->derive, "zip"))
    {
      g_autofree char *stem = g_strndup (base, strrchr (base, '.') ? (gsize) (strrchr (base, '.') - base) : strlen (base));
      g_autofree char *zipname = g_strconcat (stem, ".zip", NULL);

      out = g_build_filename (packed_dir, zipname, NULL);
      code = g_strdup_printf ("import zipfile; z = zipfile.ZipFile('%s', 'w', zipfile.ZIP_DEFLATED); "
                              "z.write('%s', '%s'); z.close()", out, t->path, base);
    }
  else
    {
      const char *ext = g_str_equal (t->derive, "gzip") ? "gz" : t->derive;
      const char *mod = g_str_equal (t->derive, "gzip") ? "gzip" : g_str_equal (t->derive, "bz2") ? "bz2" : "lzma";
      g_autofree char *packed = g_strconcat (base, ".", ext, NULL);

      out = g_build_filename (packed_dir, packed, NULL);
      code = g_strdup_printf ("import %s; open('%s', 'wb').write(%s.compress(open('%s', 'rb').read()))",
                              mod, out, mod, t->path);
    }
  argv[2] = code;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static const char *
check_value (Truth      *t,
             const char *key)
{
  gsize len = strlen (key);

  for (guint i = 0; t->checks[i] != NULL; i++)
    if (strncmp (t->checks[i], key, len) == 0 && (t->checks[i][len] == '=' || t->checks[i][len] == '~'))
      return t->checks[i] + len + 1;
  return NULL;
}

static gboolean
has_check (Truth      *t,
           const char *token)
{
  return g_strv_contains ((const char * const *) t->checks, token);
}

static RkTableProfile *
truth_table (Truth *t)
{
  RkFileProfile *p = t->profile;
  char *end = NULL;
  guint64 index = g_ascii_strtoull (t->table, &end, 10);

  if (end != NULL && *end == '\0')
    {
      g_assert_cmpuint (p->tables->len, >, index);
      return g_ptr_array_index (p->tables, index);
    }
  for (guint i = 0; i < p->tables->len; i++)
    if (g_strcmp0 (((RkTableProfile *) g_ptr_array_index (p->tables, i))->name, t->table) == 0)
      return g_ptr_array_index (p->tables, i);
  g_assert_not_reached ();
}

static const char *
delimiter_of (const char *name)
{
  if (g_str_equal (name, "tab"))
    return "\t";
  if (g_str_equal (name, "semicolon"))
    return ";";
  if (g_str_equal (name, "comma"))
    return ",";
  if (g_str_equal (name, "pipe"))
    return "|";
  return name;
}

static void
check_profile (Truth *t)
{
  RkFileProfile *p = t->profile;
  RkTableProfile *tab;
  const char *v;

  g_test_message ("%s: kind %s, error %s, hint %s", t->id, rk_file_kind_to_string (p->kind), p->error,
                  p->read_hint);
  g_assert_null (p->error);
  if (g_str_equal (t->kind, "tsv") || g_str_equal (t->kind, "csv"))
    g_assert_true (p->kind == RK_FILE_KIND_CSV || p->kind == RK_FILE_KIND_TSV);
  else
    g_assert_cmpstr (rk_file_kind_to_string (p->kind), ==, t->kind);

  if ((v = check_value (t, "pages")) != NULL)
    g_assert_cmpuint (p->pages, ==, atoi (v));
  if ((v = check_value (t, "textlayer")) != NULL)
    g_assert_cmpint (p->text_layer, ==, g_str_equal (v, "yes"));
  if ((v = check_value (t, "note")) != NULL)
    {
      gboolean found = FALSE;

      for (guint i = 0; p->notes != NULL && p->notes[i] != NULL; i++)
        found = found || strstr (p->notes[i], v) != NULL;
      g_assert_true (found);
    }
  if ((v = check_value (t, "sheets")) != NULL)
    g_assert_cmpuint (p->sheets, ==, atoi (v));
  if (has_check (t, "bom"))
    g_assert_cmpstr (p->encoding, ==, "UTF-8 (with BOM)");
  if (t->rows < 0)
    return;

  tab = truth_table (t);
  g_assert_cmpuint (tab->rows, ==, (guint64) t->rows);
  g_assert_cmpuint (tab->n_columns, ==, (guint) t->columns);
  g_assert_false (tab->rows_approximate);
  if (!g_str_equal (t->header, "-"))
    g_assert_cmpint (tab->header, ==, g_str_equal (t->header, "yes"));
  /* Exactly the date columns are dates. */
  for (guint i = 0; i < tab->columns->len; i++)
    {
      RkColumnProfile *c = g_ptr_array_index (tab->columns, i);
      gboolean is_date = c->type == RK_COLUMN_DATE || c->type == RK_COLUMN_DATETIME;

      if (is_date != g_strv_contains ((const char * const *) t->dates, c->name))
        g_error ("%s: column %s is %s", t->id, c->name, rk_column_type_to_string (c->type));
    }
  for (guint i = 0; t->checks[i] != NULL; i++)
    if (g_str_has_prefix (t->checks[i], "type:"))
      {
        g_auto(GStrv) kv = g_strsplit (t->checks[i] + 5, "=", 2);
        gboolean seen = FALSE;

        for (guint j = 0; j < tab->columns->len; j++)
          {
            RkColumnProfile *c = g_ptr_array_index (tab->columns, j);

            if (g_strcmp0 (c->name, kv[0]) == 0)
              {
                g_assert_cmpstr (rk_column_type_to_string (c->type), ==, kv[1]);
                seen = TRUE;
              }
          }
        g_assert_true (seen);
      }
    else if (g_str_has_prefix (t->checks[i], "typeat:"))
      {
        g_auto(GStrv) kv = g_strsplit (t->checks[i] + 7, "=", 2);
        RkColumnProfile *c = g_ptr_array_index (tab->columns, atoi (kv[0]));

        g_assert_cmpstr (rk_column_type_to_string (c->type), ==, kv[1]);
      }
    else if (g_str_has_prefix (t->checks[i], "name:"))
      {
        g_auto(GStrv) kv = g_strsplit (t->checks[i] + 5, "=", 2);

        g_assert_cmpstr (((RkColumnProfile *) g_ptr_array_index (tab->columns, atoi (kv[0])))->name, ==, kv[1]);
      }

  /* The reading the profile records, and what it says in words. */
  g_assert_nonnull (p->reading);
  if ((v = check_value (t, "delimiter")) != NULL)
    g_assert_cmpstr (p->reading->delimiter, ==, delimiter_of (v));
  if ((v = check_value (t, "compression")) != NULL)
    g_assert_cmpstr (p->reading->compression, ==, v);
  if ((v = check_value (t, "skip")) != NULL)
    g_assert_cmpuint (p->reading->skip_lines, ==, atoi (v));
  if ((v = check_value (t, "comments")) != NULL)
    g_assert_cmpuint (p->reading->comment_lines, ==, atoi (v));
  if ((v = check_value (t, "quotechar")) != NULL)
    g_assert_cmpstr (p->reading->quotechar, ==, v);
  if (has_check (t, "whitespace"))
    {
      g_autofree char *text = rk_file_profile_to_prompt (p, 4000, RK_PROMPT_SAMPLES_DEFAULT);

      g_assert_nonnull (strstr (text, "space-separated"));
    }
  if (has_check (t, "whitespace"))
    g_assert_true (p->reading->whitespace);
  if ((v = check_value (t, "dateformat")) != NULL)
    {
      g_autofree char *format = g_strdup (v);

      g_strdelimit (format, "+", ' ');
      g_assert_cmpuint (p->reading->dates->len, >, 0);
      g_assert_cmpstr (((RkDateColumn *) g_ptr_array_index (p->reading->dates, 0))->format, ==, format);
    }
  {
    g_autofree char *how = rk_file_profile_describe_reading (p);

    g_test_message ("%s: read as %s", t->id, how);
  }
}

static char *
python_string (const char *s)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, s);
  return json_to_string (node, FALSE);
}

/* Runs reckon.load and the load hint in the real kernel over the workspace
 * the profiler wrote its reading to; returns what each gave. */
static JsonObject *
run_loads (Truth *t)
{
  g_autofree char *name = python_string (t->name);
  g_autofree char *hint = python_string (t->profile->read_hint);
  g_autofree char *key = NULL;
  g_autofree char *code = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  RkKernelEvent *done;
  const char *line;
  JsonParser *parser;
  JsonObject *result;
  char *end = NULL;

  g_ascii_strtoull (t->table, &end, 10);
  key = (end != NULL && *end == '\0') ? g_strdup (t->table) : python_string (t->table);
  code = g_strdup_printf (
    "import json as _j, pandas as _pd\n"
    "def _desc(x, key):\n"
    "    if isinstance(x, dict):\n"
    "        x = x[key] if isinstance(key, str) else list(x.values())[key]\n"
    "    t = _pd.api.types\n"
    "    return {'rows': int(x.shape[0]), 'cols': int(x.shape[1]),\n"
    "            'dates': [str(c) for c in x.columns if t.is_datetime64_any_dtype(x[c])],\n"
    "            'numeric': [str(c) for c in x.columns if t.is_numeric_dtype(x[c]) and not t.is_bool_dtype(x[c])]}\n"
    "_r = {'load': _desc(reckon.load(%s), %s), 'hint': _desc(eval(%s), %s)}\n"
    "print('RESULT' + _j.dumps(_r))\n", name, key, hint, key);
  done = rk_test_kernel_run (&kt, code);
  for (guint i = 0; i < kt.events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (kt.events, i);

      if (ev->type == RK_KERNEL_EVENT_STREAM)
        g_string_append (out, ev->text);
    }
  if (done->status != RK_KERNEL_STATUS_OK)
    g_error ("%s: the cell failed: %s\n%s", t->id, done->message, out->str);
  line = strstr (out->str, "RESULT");
  g_assert_nonnull (line);
  parser = json_parser_new ();
  {
    g_autofree char *json = g_strndup (line + 6, strcspn (line + 6, "\n"));
    g_autoptr(GError) error = NULL;

    json_parser_load_from_data (parser, json, -1, &error);
    g_assert_no_error (error);
  }
  result = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
  g_object_unref (parser);
  return result;
}

static GStrv
strv_of (JsonObject *o,
         const char *member)
{
  JsonArray *a = json_object_get_array_member (o, member);
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  for (guint i = 0; i < json_array_get_length (a); i++)
    g_strv_builder_add (b, json_array_get_string_element (a, i));
  return g_strv_builder_end (b);
}

static void
check_frame (Truth      *t,
             JsonObject *frame,
             const char *what)
{
  RkTableProfile *tab = truth_table (t);
  g_auto(GStrv) dates = strv_of (frame, "dates");
  g_auto(GStrv) numeric = strv_of (frame, "numeric");

  g_test_message ("%s: %s gives %" G_GINT64_FORMAT " × %" G_GINT64_FORMAT, t->id, what,
                  json_object_get_int_member (frame, "rows"), json_object_get_int_member (frame, "cols"));
  g_assert_cmpint (json_object_get_int_member (frame, "rows"), ==, t->rows);
  g_assert_cmpint (json_object_get_int_member (frame, "cols"), ==, t->columns);
  g_assert_cmpuint (g_strv_length (dates), ==, g_strv_length (t->dates));
  for (guint i = 0; t->dates[i] != NULL; i++)
    g_assert_true (g_strv_contains ((const char * const *) dates, t->dates[i]));
  /* The same types as the profile: its number columns are numbers. */
  for (guint i = 0; i < tab->columns->len; i++)
    {
      RkColumnProfile *c = g_ptr_array_index (tab->columns, i);
      gboolean number = c->type == RK_COLUMN_INTEGER || c->type == RK_COLUMN_FLOAT;

      /* A column with no value at all has no type to agree on. */
      if (c->type == RK_COLUMN_EMPTY)
        continue;
      if (number != g_strv_contains ((const char * const *) numeric, c->name))
        g_error ("%s: %s: column %s is %s in the profile but %s numbers", t->id, what, c->name,
                 rk_column_type_to_string (c->type), number ? "not" : "holds");
    }
}

static void
test_real_file (gconstpointer data)
{
  Truth *t = (Truth *) data;

  if (unusable != NULL)
    {
      g_test_skip (unusable);
      return;
    }
  if (t->name == NULL)
    {
      g_autofree char *why = g_strdup_printf ("%s is not here (install the Debian package %s)",
                                              t->path, t->package);

      g_test_skip (why);
      return;
    }
  check_profile (t);
  if (t->rows < 0 || has_check (t, "noload"))
    return;
  {
    g_autoptr(JsonObject) r = run_loads (t);

    check_frame (t, json_object_get_object_member (r, "load"), "reckon.load");
    check_frame (t, json_object_get_object_member (r, "hint"), "the load hint");
  }
}

static Truth *
truth_by_id (const char *id)
{
  for (guint i = 0; i < truths->len; i++)
    if (g_str_equal (((Truth *) g_ptr_array_index (truths, i))->id, id))
      return g_ptr_array_index (truths, i);
  g_assert_not_reached ();
}

/* Runs @code in the kernel and returns its stdout. */
static char *
run_code (const char *code)
{
  GString *out = g_string_new (NULL);
  RkKernelEvent *done = rk_test_kernel_run (&kt, code);

  for (guint i = 0; i < kt.events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (kt.events, i);

      if (ev->type == RK_KERNEL_EVENT_STREAM)
        g_string_append (out, ev->text);
    }
  g_test_message ("%s", out->str);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  return g_string_free (out, FALSE);
}

static void
taken_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  rk_kernel_take_incoming_finish (RK_KERNEL (source), result, &error);
  g_assert_no_error (error);
  *done = TRUE;
}

/* The readings a profile staged (as the window's profiles do, a kernel
 * running beside them) go into the workspace through that kernel. */
static void
take_staged (void)
{
  gboolean done = FALSE;

  rk_kernel_take_incoming_async (kt.kernel, NULL, taken_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* The user's choices (from the card or reckon-cli profile) reach the
 * profile and reckon.load alike. */
static void
test_choices (void)
{
  Truth *blocks = truth_by_id ("blocks-comments-txt");
  Truth *xls = truth_by_id ("namesdemo-xls");
  Truth *iris = truth_by_id ("iris-count-line");
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *label = NULL;
  g_autofree char *code = NULL;
  g_autofree char *out = NULL;
  RkFileProfile *p;

  if (unusable != NULL)
    {
      g_test_skip (unusable);
      return;
    }
  if (blocks->name == NULL || xls->name == NULL || iris->name == NULL)
    {
      g_test_skip ("unicode-data, python3-xlrd or python3-sklearn is not installed");
      return;
    }

  /* The metadata line of iris.csv, kept as the card offers. */
  g_assert_true (rk_file_profile_get_alternative (iris->profile, &options, &label));
  g_assert_cmpstr (label, ==, "Keep line 1 as part of the table");
  options.stage_readings = TRUE;
  {
    const char *names[] = { iris->name, NULL };

    profiles = rk_profile_files (kt.workspace, names, &options, NULL, &error);
  }
  g_assert_no_error (error);
  p = g_ptr_array_index (profiles, 0);
  g_assert_cmpuint (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->rows, ==, 150);
  g_assert_true (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->header);
  g_clear_pointer (&profiles, g_ptr_array_unref);

  /* Blocks.txt with its first row as the header. */
  options = (RkProfileOptions) RK_PROFILE_OPTIONS_INIT;
  options.header = RK_PROFILE_HEADER_YES;
  options.stage_readings = TRUE;
  {
    const char *names[] = { blocks->name, NULL };

    profiles = rk_profile_files (kt.workspace, names, &options, NULL, &error);
  }
  g_assert_no_error (error);
  p = g_ptr_array_index (profiles, 0);
  g_assert_cmpuint (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->rows, ==, 326);
  g_clear_pointer (&profiles, g_ptr_array_unref);

  /* One sheet of the workbook. */
  options = (RkProfileOptions) RK_PROFILE_OPTIONS_INIT;
  options.sheet = "Sheet3";
  options.stage_readings = TRUE;
  {
    const char *names[] = { xls->name, NULL };

    profiles = rk_profile_files (kt.workspace, names, &options, NULL, &error);
  }
  g_assert_no_error (error);
  p = g_ptr_array_index (profiles, 0);
  g_assert_cmpstr (p->reading->sheet, ==, "Sheet3");
  take_staged ();

  code = g_strdup_printf ("a = reckon.load('%s'); b = reckon.load('%s'); c = reckon.load('%s')\n"
                          "print('CHOICES', a.shape, b.shape, list(b.columns[:1]), type(c).__name__, c.shape)\n",
                          iris->name, blocks->name, xls->name);
  out = run_code (code);
  g_assert_nonnull (strstr (out, "CHOICES (150, 5) (326, 2) ['0000..007F'] DataFrame (26, 14)"));
}

static void
test_load_errors (void)
{
  g_autofree char *out = NULL;

  if (unusable != NULL)
    {
      g_test_skip (unusable);
      return;
    }
  /* One clear sentence, naming what there is. */
  out = run_code ("try:\n    reckon.load('no-such-file.csv')\n"
                  "except FileNotFoundError as e:\n    print('ERR', e)\n");
  g_assert_nonnull (strstr (out, "ERR There is no file 'no-such-file.csv' in the workspace; its files are: "));
}

/* Every file is added and profiled in one run, as a user adding them all
 * at once would; then one kernel over the same workspace loads them. */
static void
setup (void)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GPtrArray) with_file = g_ptr_array_new ();
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GError) error = NULL;

  if (!rk_test_kernel_sandbox_usable (&unusable))
    return;
  memset (&kt, 0, sizeof kt);
  g_assert_true (rk_test_kernel_init (&kt, NULL));
  /* reckon-sandbox as root opens the workspace as its owner. */
  packed_dir = g_dir_make_tmp ("reckon-real-files-XXXXXX", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < truths->len; i++)
    {
      Truth *t = g_ptr_array_index (truths, i);
      g_autofree char *src = NULL;

      if (!g_file_test (t->path, G_FILE_TEST_IS_REGULAR))
        continue;
      src = source_of (t);
      t->name = rk_import_file (kt.workspace, src, NULL, &error);
      g_assert_no_error (error);
      g_ptr_array_add (names, t->name);
      g_ptr_array_add (with_file, t);
    }
  g_ptr_array_add (names, NULL);
  profiles = rk_profile_files (kt.workspace, (const char * const *) names->pdata, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (profiles->len, ==, with_file->len);
  for (guint i = 0; i < with_file->len; i++)
    ((Truth *) g_ptr_array_index (with_file, i))->profile = rk_file_profile_copy (g_ptr_array_index (profiles, i));
  rk_test_kernel_start (&kt);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  truths = load_truths ();
  setup ();
  for (guint i = 0; i < truths->len; i++)
    {
      Truth *t = g_ptr_array_index (truths, i);
      g_autofree char *path = g_strdup_printf ("/rk/real-files/%s", t->id);

      g_test_add_data_func (path, t, test_real_file);
    }
  g_test_add_func ("/rk/real-files/choices", test_choices);
  g_test_add_func ("/rk/real-files/load-errors", test_load_errors);
  status = g_test_run ();

  for (guint i = 0; i < truths->len; i++)
    g_clear_pointer (&((Truth *) g_ptr_array_index (truths, i))->profile, rk_file_profile_free);
  if (kt.kernel != NULL)
    rk_test_kernel_teardown (&kt, NULL);
  if (packed_dir != NULL)
    rk_workspace_delete_folder (packed_dir, NULL);
  g_free (packed_dir);
  g_free (unusable);
  g_ptr_array_unref (truths);
  return status;
}
