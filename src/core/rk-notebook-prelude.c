/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-notebook-prelude.c — the first cell of an exported notebook: outside
 * Reckon, a stand-in `reckon` whose load() replays each file's recorded
 * reading as pandas arguments (sandbox/kernel/reckon/reading.py's replay). */
#define G_LOG_DOMAIN "rk-transcript"
#include "config.h"

#include "rk-notebook-prelude.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-glib/json-glib.h>

#include "rk-json.h"
#include "rk-util.h"

#define READINGS_DIR   ".reckon/readings"
#define MAX_RECORDS    200          /* files described in one prelude */
#define MAX_RECORD     (1u << 20)   /* bytes of one record beside a file */
#define MAX_NAMES      16384        /* columns named by a reading */
#define MAX_SHEETS     64
#define MAX_DATES      64
#define MAX_STRING     4096
#define MAX_DEPTH      32           /* nesting of a record */

/* What comes before the readings. */
static const char prelude_head[] =
  "# Reckon ran this analysis with its helper module `reckon` (reckon.load, reckon.chart).\n"
  "# Outside Reckon a stand-in reads each file the way Reckon read it (the pandas\n"
  "# arguments below, recorded when the file was added) and draws charts with matplotlib.\n"
  "try:\n"
  "    import reckon\n"
  "except ImportError:\n"
  "    import csv\n"
  "    import types\n"
  "    import pandas as pd\n"
  "\n"
  "    # How Reckon read each file: for a text table the arguments of pd.read_csv,\n"
  "    # then the columns it turned into dates (column number: format); for a\n"
  "    # workbook, per sheet, the arguments of pd.read_excel (`header`: the row of\n"
  "    # the column names, counted from 0; rows above it were titles or empty);\n"
  "    # for JSON, where its records are (pd.json_normalize makes the table).\n";

/* What comes after them. */
static const char prelude_tail[] =
  "\n"
  "    def _reckon_columns(df, args):\n"
  "        # Reckon's column names: trimmed; blank ones 'column N'; repeats 'name.1'.\n"
  "        if args.get('header') is None and 'names' not in args:\n"
  "            df.columns = ['column %d' % (i + 1) for i in range(df.shape[1])]\n"
  "            return df\n"
  "        seen, names = {}, []\n"
  "        for i, n in enumerate(df.columns):\n"
  "            if isinstance(n, float) and n.is_integer():\n"
  "                n = '%d' % n\n"
  "            if 'names' not in args and str(n).startswith('Unnamed: '):\n"
  "                n = ''\n"
  "            n = str(n).strip() or 'column %d' % (i + 1)\n"
  "            base, k = n, seen.get(n, 0)\n"
  "            while n in seen:\n"
  "                k += 1\n"
  "                n = '%s.%d' % (base, k)\n"
  "            seen[base], seen[n] = k, 0\n"
  "            names.append(n)\n"
  "        df.columns = names\n"
  "        return df\n"
  "\n"
  "    def _reckon_load(name, sheet=None):\n"
  "        how = _reckon_readings.get(name)\n"
  "        if how is None:\n"
  "            # No record of this file: a guess.\n"
  "            if name.lower().endswith(('.xlsx', '.xlsm', '.xls', '.ods')):\n"
  "                return pd.read_excel(name, sheet_name=sheet if sheet is not None else 0)\n"
  "            return pd.read_csv(name)\n"
  "        if 'read_excel' in how:\n"
  "            wanted = sheet if sheet is not None else how.get('sheet')\n"
  "            sheets = [wanted] if wanted is not None else pd.ExcelFile(name).sheet_names\n"
  "            frames = {}\n"
  "            for s in sheets:\n"
  "                args = how['read_excel'].get(s, dict(header=0))\n"
  "                df = _reckon_columns(pd.read_excel(name, sheet_name=s, **args), args)\n"
  "                # Reckon keeps the empty cells of text columns, and wholly empty columns, as None.\n"
  "                for j in range(df.shape[1]):\n"
  "                    col = df.iloc[:, j]\n"
  "                    if col.dtype == object or col.isna().all():\n"
  "                        df.isetitem(j, col.astype(object).where(col.notna(), None))\n"
  "                frames[s] = df\n"
  "            return frames[sheets[0]] if len(frames) == 1 else frames\n"
  "        if sheet is not None:\n"
  "            raise ValueError('%s is not a workbook: it has no sheets.' % name)\n"
  "        if 'json' in how:\n"
  "            import json\n"
  "            args = how['json']\n"
  "            with open(name, encoding=args['encoding']) as f:\n"
  "                data = [json.loads(line) for line in f if line.strip()] if args['lines'] else json.load(f)\n"
  "            if args['records'] is not None and isinstance(data, dict):\n"
  "                data = data.get(args['records'])\n"
  "            df = pd.json_normalize(data, max_level=1)\n"
  "        else:\n"
  "            args = how['read_csv']\n"
  "            source = name\n"
  "            if 'zip_member' in how:\n"
  "                # the one file inside the ZIP archive (pandas refuses one that also holds folders)\n"
  "                import zipfile\n"
  "                source = zipfile.ZipFile(name).open(how['zip_member'])\n"
  "            df = _reckon_columns(pd.read_csv(source, **args), args)\n"
  "        if how.get('strip'):\n"
  "            for j in range(df.shape[1]):\n"
  "                if df.dtypes.iloc[j] == object:\n"
  "                    df.isetitem(j, df.iloc[:, j].str.strip())\n"
  "        for j, fmt in how.get('dates', {}).items():\n"
  "            if j < df.shape[1] and df.dtypes.iloc[j] == object:\n"
  "                df.isetitem(j, pd.to_datetime(df.iloc[:, j], format=fmt, errors='coerce'))\n"
  "        for j in how.get('category', ()):\n"
  "            if j < df.shape[1] and df.dtypes.iloc[j] == object:\n"
  "                df.isetitem(j, df.iloc[:, j].astype('category'))\n"
  "        for j in how.get('int32', ()):\n"
  "            # integers as int32 where every value fits, as Reckon read them\n"
  "            col = df.iloc[:, j] if j < df.shape[1] else None\n"
  "            if col is not None and col.dtype.kind == 'i' and len(col) and -2**31 <= col.min() and col.max() < 2**31:\n"
  "                df.isetitem(j, col.astype('int32'))\n"
  "        return df\n"
  "\n"
  "    def _reckon_chart(data, kind='line', x=None, y=None, title=None, **kwargs):\n"
  "        import matplotlib.pyplot as plt\n"
  "        kinds = {'histogram': 'hist'}\n"
  "        pd.DataFrame(data).plot(kind=kinds.get(kind, kind), x=x, y=y, title=title)\n"
  "        plt.show()\n"
  "\n"
  "    def _reckon_compute(obj, sample=None):\n"
  "        # Reckon reads a table past a third of its memory limit lazily (Dask); here it is pandas.\n"
  "        return obj.compute() if hasattr(obj, '__dask_graph__') else obj\n"
  "\n"
  "    reckon = types.SimpleNamespace(load=_reckon_load, chart=_reckon_chart, compute=_reckon_compute,\n"
  "                                   show=lambda obj, name=None: display(obj))\n";

/* reading.py's ISO_FORMATS: read_csv parses these itself (parse_dates). */
static const char * const iso_formats[] = {
  "%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", NULL
};

/* ------------------------------------------------------------ Python text */

/* @s as a Python string literal. Only printable text passes as it is:
 * quotes, backslashes and control characters are escaped, so nothing in a
 * reading (it comes from the sandbox) can end the literal. */
static void
py_string (GString    *out,
           const char *s)
{
  char quote = (strchr (s, '\'') != NULL && strchr (s, '"') == NULL) ? '"' : '\'';

  g_string_append_c (out, quote);
  for (const char *p = s; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == (gunichar) quote || c == '\\')
        g_string_append_printf (out, "\\%c", (char) c);
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if ((c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029 || c == 0xfeff)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  g_string_append_c (out, quote);
}

/* ------------------------------------------------------- reading the record */

/* Thin forms of rk-json's getters for a record that is read as far as it
 * makes sense: a member that is absent or not as expected is left out. */

/* A string member of 1..MAX_STRING bytes, else NULL. */
static const char *
get_str (JsonObject *o,
         const char *member)
{
  const char *s = NULL;

  if (!rk_json_get_string (o, member, MAX_STRING, RK_JSON_OPTIONAL, &s, NULL) || s == NULL || *s == '\0')
    return NULL;
  return s;
}

static gboolean
get_flag (JsonObject *o,
          const char *member,
          gboolean    fallback)
{
  gboolean v = fallback;

  return rk_json_get_bool (o, member, RK_JSON_OPTIONAL, &v, NULL) ? v : fallback;
}

/* A whole number in 0..@max, or -1. */
static gint64
get_count (JsonObject *o,
           const char *member,
           gint64      max)
{
  gint64 v = -1;

  return rk_json_get_int (o, member, 0, max, RK_JSON_OPTIONAL, &v, NULL) ? v : -1;
}

/* A reading's list of column numbers (its dtype choice: "category",
 * "downcast") as "1, 2, 5": whole numbers below MAX_NAMES, others left out. */
static void
column_list (JsonObject *r,
             const char *member,
             GString    *out)
{
  JsonNode *node = json_object_get_member (r, member);
  JsonArray *a;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  a = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (a) && i < MAX_NAMES; i++)
    {
      JsonNode *n = json_array_get_element (a, i);

      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64 ||
          json_node_get_int (n) < 0 || json_node_get_int (n) >= MAX_NAMES)
        continue;
      g_string_append_printf (out, "%s%" G_GINT64_FORMAT, out->len > 0 ? ", " : "", json_node_get_int (n));
    }
}

static gboolean
is_codec_name (const char *s)
{
  if (s == NULL || strlen (s) > 40)
    return FALSE;
  for (const char *p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

/* One kwarg: ", name=" then the value (the first without the comma). */
static void
kwarg (GString    *out,
       gboolean   *first,
       const char *name)
{
  if (!*first)
    g_string_append (out, ", ");
  *first = FALSE;
  g_string_append_printf (out, "%s=", name);
}

static void
kwarg_str (GString    *out,
           gboolean   *first,
           const char *name,
           const char *value)
{
  kwarg (out, first, name);
  py_string (out, value);
}

/* The reading's date columns: @formats gets "column: 'format', ..."; @iso
 * the columns read_csv parses itself, @text those it reads as text first
 * (either may be NULL). */
static void
date_formats (JsonObject *r,
              GString    *iso,
              GString    *text,
              GString    *formats)
{
  JsonNode *node = json_object_get_member (r, "dates");
  JsonArray *dates;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  dates = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (dates) && i < MAX_DATES; i++)
    {
      JsonNode *n = json_array_get_element (dates, i);
      const char *format;
      gint64 column;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      column = get_count (json_node_get_object (n), "column", MAX_NAMES);
      format = get_str (json_node_get_object (n), "format");
      if (column < 0 || format == NULL)
        continue;
      if (g_strv_contains (iso_formats, format))
        {
          if (iso != NULL)
            g_string_append_printf (iso, "%s%" G_GINT64_FORMAT, iso->len ? ", " : "", column);
        }
      else if (text != NULL)
        g_string_append_printf (text, "%s%" G_GINT64_FORMAT ": str", text->len ? ", " : "", column);
      g_string_append_printf (formats, "%s%" G_GINT64_FORMAT ": ", formats->len ? ", " : "", column);
      py_string (formats, format);
    }
}

/* The entry of a delimited text file: reading.py's csv_options() and
 * read_csv(), as arguments. FALSE if the reading is not one it can say. */
static gboolean
csv_entry (GString    *out,
           JsonObject *r)
{
  static const char * const compressions[] = { "gzip", "bz2", "xz", "zip", NULL };
  const char *encoding = get_str (r, "encoding");
  const char *compression = get_str (r, "compression");
  const char *delimiter = get_str (r, "delimiter");
  const char *newlines = get_str (r, "newlines");
  const char *member = get_str (r, "member");
  JsonNode *names_node = json_object_get_member (r, "names");
  JsonArray *names = NULL;
  g_autoptr(GString) iso = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) formats = g_string_new (NULL);
  g_autoptr(GString) categories = g_string_new (NULL);
  g_autoptr(GString) int32 = g_string_new (NULL);
  gboolean header = get_flag (r, "header", TRUE);
  gint64 skip = get_count (r, "skip_lines", G_MAXINT32);
  gboolean first = TRUE;
  const char *s;

  if (encoding == NULL)
    encoding = "utf-8";
  if (!is_codec_name (encoding))
    return FALSE;
  if (compression != NULL && !g_strv_contains (compressions, compression))
    return FALSE;
  /* Mixed line ends: Reckon reads those through Python's own newline
   * handling, which no read_csv argument says. */
  if (g_strcmp0 (newlines, "mixed") == 0)
    return FALSE;
  if (skip < 0)
    skip = 0;
  if (names_node != NULL)
    {
      if (!JSON_NODE_HOLDS_ARRAY (names_node))
        return FALSE;
      names = json_node_get_array (names_node);
      if (json_array_get_length (names) == 0 || json_array_get_length (names) > MAX_NAMES)
        return FALSE;
      for (guint i = 0; i < json_array_get_length (names); i++)
        {
          JsonNode *n = json_array_get_element (names, i);

          if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING ||
              !g_utf8_validate (json_node_get_string (n), -1, NULL))
            return FALSE;
        }
    }
  date_formats (r, iso, text, formats);
  column_list (r, "category", categories);
  column_list (r, "downcast", int32);

  g_string_append (out, "            'read_csv': dict(");
  kwarg_str (out, &first, "encoding", encoding);
  if (get_flag (r, "whitespace", FALSE))
    {
      kwarg (out, &first, "delim_whitespace");
      g_string_append (out, "True");
    }
  else
    kwarg_str (out, &first, "sep", delimiter ? delimiter : ",");
  if (names != NULL)
    {
      kwarg (out, &first, "header");
      g_string_append (out, "None");
      kwarg (out, &first, "names");
      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (names); i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          py_string (out, json_array_get_string_element (names, i));
        }
      g_string_append_c (out, ']');
      kwarg (out, &first, "skiprows");
      g_string_append_printf (out, "%" G_GINT64_FORMAT, skip + (header ? 1 : 0));
    }
  else
    {
      kwarg (out, &first, "header");
      g_string_append (out, header ? "0" : "None");
      kwarg (out, &first, "skiprows");
      g_string_append_printf (out, "%" G_GINT64_FORMAT, skip);
    }
  if ((s = get_str (r, "decimal")) != NULL && !g_str_equal (s, "."))
    kwarg_str (out, &first, "decimal", s);
  if ((s = get_str (r, "thousands")) != NULL)
    kwarg_str (out, &first, "thousands", s);
  if ((s = get_str (r, "quotechar")) != NULL && !g_str_equal (s, "\""))
    kwarg_str (out, &first, "quotechar", s);
  if (g_strcmp0 (get_str (r, "quoting"), "none") == 0)
    {
      kwarg (out, &first, "quoting");
      g_string_append (out, "csv.QUOTE_NONE");
    }
  if (get_flag (r, "skipinitialspace", FALSE))
    {
      kwarg (out, &first, "skipinitialspace");
      g_string_append (out, "True");
    }
  if ((s = get_str (r, "comment")) != NULL)
    kwarg_str (out, &first, "comment", s);
  /* Compressed or not by content, whatever the name ends with; a ZIP
   * member is opened by the stand-in itself. */
  kwarg (out, &first, "compression");
  if (compression != NULL && !(g_str_equal (compression, "zip") && member != NULL))
    py_string (out, compression);
  else
    g_string_append (out, "None");
  if (iso->len > 0)
    {
      kwarg (out, &first, "parse_dates");
      g_string_append_printf (out, "[%s]", iso->str);
    }
  if (text->len > 0)
    {
      kwarg (out, &first, "dtype");
      g_string_append_printf (out, "{%s}", text->str);
    }
  kwarg (out, &first, "low_memory");
  g_string_append (out, "False");
  g_string_append (out, "),\n");
  if (g_strcmp0 (compression, "zip") == 0 && member != NULL)
    {
      g_string_append (out, "            'zip_member': ");
      py_string (out, member);
      g_string_append (out, ",\n");
    }
  if (get_flag (r, "strip", FALSE))
    g_string_append (out, "            'strip': True,  # spaces around values removed\n");
  if (formats->len > 0)
    g_string_append_printf (out, "            'dates': {%s},\n", formats->str);
  /* The dtypes reckon.load chose for a big file: text with few distinct
   * values as category, integers as int32 where they fit. */
  if (categories->len > 0)
    g_string_append_printf (out, "            'category': [%s],\n", categories->str);
  if (int32->len > 0)
    g_string_append_printf (out, "            'int32': [%s],\n", int32->str);
  return TRUE;
}

/* The entry of a workbook: per sheet, where its table starts. FALSE when
 * the record does not say it (an older one without skip_rows). */
static gboolean
workbook_entry (GString    *out,
                JsonObject *r)
{
  JsonNode *sheets_node = json_object_get_member (r, "sheets");
  JsonArray *sheets;
  const char *sheet = get_str (r, "sheet");

  if (sheets_node == NULL || !JSON_NODE_HOLDS_ARRAY (sheets_node))
    return FALSE;
  sheets = json_node_get_array (sheets_node);
  if (json_array_get_length (sheets) == 0 || json_array_get_length (sheets) > MAX_SHEETS)
    return FALSE;
  for (guint i = 0; i < json_array_get_length (sheets); i++)
    {
      JsonNode *n = json_array_get_element (sheets, i);

      if (!JSON_NODE_HOLDS_OBJECT (n) || get_str (json_node_get_object (n), "name") == NULL ||
          get_count (json_node_get_object (n), "skip_rows", G_MAXINT32) < 0)
        return FALSE;
    }

  g_string_append (out, "            'read_excel': {\n");
  for (guint i = 0; i < json_array_get_length (sheets); i++)
    {
      JsonObject *o = json_array_get_object_element (sheets, i);
      gint64 skip = get_count (o, "skip_rows", G_MAXINT32);

      g_string_append (out, "                ");
      py_string (out, get_str (o, "name"));
      if (get_flag (o, "header", TRUE))
        g_string_append_printf (out, ": dict(header=%" G_GINT64_FORMAT "),\n", skip);
      else
        g_string_append_printf (out, ": dict(header=None, skiprows=%" G_GINT64_FORMAT "),\n", skip);
    }
  g_string_append (out, "            },\n");
  if (sheet != NULL)
    {
      g_string_append (out, "            'sheet': ");
      py_string (out, sheet);
      g_string_append (out, ",\n");
    }
  return TRUE;
}

/* The entry of a JSON file of records: reading.py's read_json_records().
 * A packed one is left to the guess. */
static gboolean
json_entry (GString    *out,
            JsonObject *r)
{
  const char *encoding = get_str (r, "encoding");
  JsonNode *key_node = json_object_get_member (r, "records_key");
  const char *key = get_str (r, "records_key");
  g_autoptr(GString) formats = g_string_new (NULL);

  /* an empty key is a key too ({"": [...]}) */
  if (key == NULL && key_node != NULL && JSON_NODE_HOLDS_VALUE (key_node) &&
      json_node_get_value_type (key_node) == G_TYPE_STRING && g_strcmp0 (json_node_get_string (key_node), "") == 0)
    key = "";

  if (encoding == NULL)
    encoding = "utf-8";
  if (!is_codec_name (encoding) || json_object_has_member (r, "compression"))
    return FALSE;
  date_formats (r, NULL, NULL, formats);
  g_string_append (out, "            'json': dict(encoding=");
  py_string (out, encoding);
  g_string_append_printf (out, ", lines=%s, records=", get_flag (r, "json_lines", FALSE) ? "True" : "False");
  if (key != NULL)
    py_string (out, key);
  else
    g_string_append (out, "None");
  g_string_append (out, "),\n");
  if (formats->len > 0)
    g_string_append_printf (out, "            'dates': {%s},\n", formats->str);
  return TRUE;
}

static void
file_entry (GString    *out,
            const char *name,
            JsonObject *reading)
{
  g_autoptr(GString) body = g_string_new (NULL);
  const char *format = get_str (reading, "format");
  gboolean ok = FALSE;

  if (g_strcmp0 (format, "csv") == 0)
    ok = csv_entry (body, reading);
  else if (g_strcmp0 (format, "json") == 0)
    ok = json_entry (body, reading);
  else if (g_strcmp0 (format, "xlsx") == 0 || g_strcmp0 (format, "xls") == 0 ||
           g_strcmp0 (format, "ods") == 0)
    ok = workbook_entry (body, reading);
  if (!ok)
    return;
  g_string_append (out, "        ");
  py_string (out, name);
  g_string_append (out, ": {\n");
  g_string_append (out, body->str);
  g_string_append (out, "        },\n");
}

/* ---------------------------------------------------- where records are */

/* A record beside a file or an attachment's detail: an object, read
 * through the one parse entry (the kernel wrote the former). */
static JsonNode *
parse_object (const char *data,
              gssize      len)
{
  g_autoptr(JsonNode) root = rk_json_parse (data, len, MAX_RECORD, MAX_DEPTH, RK_JSON_SCAN_DEFAULT, NULL);

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return g_steal_pointer (&root);
}

/* The records beside the files (.reckon/readings/NAME.json), as
 * reckon.load finds them: only for a file that has not changed since. */
static void
add_saved_readings (GHashTable  *readings,
                    RkWorkspace *ws)
{
  int dfd = rk_workspace_open_folder (ws, READINGS_DIR, NULL);
  DIR *dir;
  struct dirent *d;

  if (dfd < 0)
    return;
  dir = fdopendir (dfd);
  if (dir == NULL)
    {
      close (dfd);
      return;
    }
  while ((d = readdir (dir)) != NULL && g_hash_table_size (readings) < MAX_RECORDS)
    {
      g_autofree char *rel = NULL;
      g_autoptr(GBytes) data = NULL;
      g_autoptr(JsonNode) doc = NULL;
      const char *text;
      JsonObject *o;
      JsonNode *reading;
      const char *name;
      struct stat st;
      gsize len = 0;
      int fd;

      if (d->d_name[0] == '.' || !g_str_has_suffix (d->d_name, ".json"))
        continue;
      rel = g_build_filename (READINGS_DIR, d->d_name, NULL);
      data = rk_workspace_read_file (ws, rel, MAX_RECORD, NULL);
      if (data == NULL)
        continue;
      text = g_bytes_get_data (data, &len);
      if ((doc = parse_object (text, (gssize) len)) == NULL)
        continue;
      o = json_node_get_object (doc);
      name = get_str (o, "name");
      reading = json_object_get_member (o, "reading");
      if (get_count (o, "version", 1) != 1 || name == NULL || strchr (name, '/') != NULL ||
          !rk_path_is_beneath (name) || reading == NULL || !JSON_NODE_HOLDS_OBJECT (reading))
        continue;
      fd = rk_workspace_open_file (ws, name, NULL);
      if (fd < 0)
        continue;
      if (fstat (fd, &st) == 0 && get_count (o, "size", G_MAXINT64) == (gint64) st.st_size &&
          get_count (o, "mtime_ns", G_MAXINT64) == (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec)
        g_hash_table_replace (readings, g_strdup (name), json_node_copy (reading));
      close (fd);
    }
  closedir (dir);
}

/* The records the transcript keeps: each attachment entry's profile. */
static void
add_attachment_readings (GHashTable *readings,
                         GListModel *entries)
{
  guint n = g_list_model_get_n_items (entries);

  for (guint i = 0; i < n && g_hash_table_size (readings) < MAX_RECORDS; i++)
    {
      g_autoptr(RkTranscriptEntry) e = g_list_model_get_item (entries, i);
      const char *name = rk_transcript_entry_get_name (e);
      const char *detail = rk_transcript_entry_get_detail (e);
      g_autoptr(JsonNode) doc = NULL;
      JsonNode *reading;

      if (rk_transcript_entry_get_kind (e) != RK_ENTRY_ATTACHMENT || name == NULL || detail == NULL ||
          g_hash_table_contains (readings, name))
        continue;
      doc = parse_object (detail, -1);
      if (doc == NULL)
        continue;
      reading = json_object_get_member (json_node_get_object (doc), "reading");
      if (reading != NULL && JSON_NODE_HOLDS_OBJECT (reading))
        g_hash_table_replace (readings, g_strdup (name), json_node_copy (reading));
    }
}

static int
compare_names (const void *a,
               const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char *
rk_notebook_prelude (GListModel  *entries,
                     RkWorkspace *workspace)
{
  g_autoptr(GHashTable) readings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) json_node_unref);
  g_autofree const char **names = NULL;
  GString *out = g_string_new (prelude_head);
  guint n = 0;

  g_return_val_if_fail (G_IS_LIST_MODEL (entries), NULL);

  /* What reckon.load replayed comes first; a conversation whose workspace
   * is gone still has its attachment entries. */
  if (workspace != NULL)
    add_saved_readings (readings, workspace);
  add_attachment_readings (readings, entries);

  names = (const char **) g_hash_table_get_keys_as_array (readings, &n);
  qsort (names, n, sizeof (char *), compare_names);
  g_string_append (out, "    _reckon_readings = {\n");
  for (guint i = 0; i < n; i++)
    file_entry (out, names[i], json_node_get_object (g_hash_table_lookup (readings, names[i])));
  g_string_append (out, "    }\n");
  g_string_append (out, prelude_tail);
  return g_string_free (out, FALSE);
}
