/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-notebook-prelude.c — the exported notebook's stand-in for `reckon`:
 * hostile readings (they come from the sandbox) stay data, never code;
 * records beside the files win over the attachment entries' unless stale. */
#define G_LOG_DOMAIN "test-notebook-prelude"
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-notebook-prelude.h"
#include "rk-transcript.h"

/* Parses the prelude, checks that the readings are only data (dict(...),
 * literals, `str`, csv.QUOTE_NONE), evaluates them without builtins and
 * compares them with argv[1] (JSON; int keys as strings, `str` as "str"). */
static const char checker[] =
  "import ast, csv, json, sys\n"
  "src = sys.stdin.read()\n"
  "tree = ast.parse(src)\n"
  "assert isinstance(tree.body[0], ast.Try), 'the prelude does not start with try: import reckon'\n"
  "assert isinstance(tree.body[0].body[0], ast.Import) and tree.body[0].body[0].names[0].name == 'reckon'\n"
  "found = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)\n"
  "         and any(isinstance(t, ast.Name) and t.id == '_reckon_readings' for t in n.targets)]\n"
  "assert len(found) == 1, 'no single _reckon_readings'\n"
  "ok = (ast.Dict, ast.List, ast.Constant, ast.keyword, ast.Load, ast.Call, ast.Name, ast.Attribute)\n"
  "for n in ast.walk(found[0]):\n"
  "    assert isinstance(n, ok), 'not data: %s' % ast.dump(n)\n"
  "    if isinstance(n, ast.Call):\n"
  "        assert isinstance(n.func, ast.Name) and n.func.id == 'dict' and not n.args, ast.dump(n)\n"
  "    if isinstance(n, ast.Name):\n"
  "        assert n.id in ('dict', 'str', 'csv'), n.id\n"
  "    if isinstance(n, ast.Attribute):\n"
  "        assert isinstance(n.value, ast.Name) and n.value.id == 'csv' and n.attr == 'QUOTE_NONE'\n"
  "readings = eval(compile(ast.Expression(found[0]), 'readings', 'eval'),\n"
  "                {'__builtins__': {}, 'dict': dict, 'str': str, 'csv': csv})\n"
  "got = json.loads(json.dumps(readings, default=lambda o: o.__name__))\n"
  "want = json.loads(sys.argv[1])\n"
  "if got != want:\n"
  "    print('got  ' + json.dumps(got, sort_keys=True))\n"
  "    print('want ' + json.dumps(want, sort_keys=True))\n"
  "    sys.exit(1)\n"
  "print('same')\n";

static void
check_readings (const char *prelude,
                const char *want_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                           G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           "/usr/bin/python3", "-c", checker, want_json, NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (proc, prelude, NULL, &out, &err, &error));
  g_assert_no_error (error);
  if (!g_subprocess_get_successful (proc))
    {
      g_test_message ("prelude:\n%s", prelude);
      g_error ("the readings are not what was recorded:\n%s%s", out, err);
    }
  g_assert_cmpstr (out, ==, "same\n");
}

static void
attach (RkTranscript *t,
        const char   *name,
        const char   *detail)
{
  guint id = rk_transcript_add_attachment (t, name, name);

  g_assert_cmpuint (id, >, 0);
  if (detail != NULL)
    g_assert_true (rk_transcript_set_attachment_profile (t, id, detail));
}

/* Strings that would end a literal, start a new line of code or hide one
 * come back as the same strings; records that cannot be said exactly (a
 * codec that is not a name, an unknown compression, an older workbook
 * record, a PDF) are left to the guess. */
static void
test_hostile (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autofree char *prelude = NULL;

  attach (t, "it's \"odd\"\\\n.csv",
          "{\"reading\": {\"format\": \"csv\", \"encoding\": \"latin-1\", \"delimiter\": \"'\","
          " \"header\": true, \"skip_lines\": 1e300, \"decimal\": \"\\\\\", \"thousands\": \"\\u2028\","
          " \"comment\": \"')\\nimport os\\n#\", \"quotechar\": \"\\\"\\\"\\\"\","
          " \"dates\": [{\"column\": 2, \"format\": \"%d.%m.%Y'\"}, {\"column\": \"x\", \"format\": \"%Y\"},"
          "             {\"column\": 99999999, \"format\": \"%Y\"}, {\"column\": -1, \"format\": \"%Y\"}, 7]}}");
  attach (t, "ragged.csv",
          "{\"reading\": {\"format\": \"csv\", \"delimiter\": \",\", \"header\": true, \"skip_lines\": 3,"
          " \"names\": [\"a'b\", \"c\\\"d\\u0085\"], \"quoting\": \"none\", \"compression\": \"gzip\","
          " \"strip\": true, \"whitespace\": \"yes\", \"dates\": [{\"column\": 0, \"format\": \"%Y-%m-%d\"}]}}");
  attach (t, "book.xlsx",
          "{\"reading\": {\"format\": \"xlsx\", \"sheet\": \"S'1\\n\","
          " \"sheets\": [{\"name\": \"S'1\\n\", \"header\": false, \"skip_rows\": 2},"
          "              {\"name\": \"Two\", \"header\": true, \"skip_rows\": 0}]}}");
  attach (t, "one.zip",
          "{\"reading\": {\"format\": \"csv\", \"compression\": \"zip\", \"member\": \"folder/in'side.csv\"}}");
  attach (t, "records.json",
          "{\"reading\": {\"format\": \"json\", \"encoding\": \"utf-8-sig\", \"json_lines\": true,"
          " \"records_key\": \"it's\\n\", \"dates\": [{\"column\": 1, \"format\": \"%d/%m/%Y\"}]}}");
  attach (t, "plain.json", "{\"reading\": {\"format\": \"json\"}}");
  attach (t, "blank-key.json", "{\"reading\": {\"format\": \"json\", \"records_key\": \"\"}}");
  /* left to the guess */
  attach (t, "packed.json.gz", "{\"reading\": {\"format\": \"json\", \"compression\": \"gzip\"}}");
  attach (t, "codec.csv", "{\"reading\": {\"format\": \"csv\", \"encoding\": \"utf-8'); import os; ('\"}}");
  attach (t, "packed.csv", "{\"reading\": {\"format\": \"csv\", \"compression\": \"rm -rf\"}}");
  attach (t, "old.xlsx", "{\"reading\": {\"format\": \"xlsx\", \"sheets\": [{\"name\": \"A\", \"header\": true}]}}");
  attach (t, "doc.pdf", "{\"reading\": {\"format\": \"pdf\"}}");
  attach (t, "mixed.csv", "{\"reading\": {\"format\": \"csv\", \"newlines\": \"mixed\"}}");
  attach (t, "names.csv", "{\"reading\": {\"format\": \"csv\", \"names\": [1, 2]}}");
  attach (t, "notjson.csv", "{not json");
  attach (t, "array.csv", "{\"reading\": [1, 2]}");
  attach (t, "none.csv", NULL);

  prelude = rk_notebook_prelude (G_LIST_MODEL (t), NULL);
  g_assert_true (g_utf8_validate (prelude, -1, NULL));
  g_assert_true (g_str_has_prefix (prelude, "# Reckon ran this analysis"));
  check_readings (prelude,
    "{\"it's \\\"odd\\\"\\\\\\n.csv\": {"
    "  \"read_csv\": {\"encoding\": \"latin-1\", \"sep\": \"'\", \"header\": 0, \"skiprows\": 0,"
    "               \"decimal\": \"\\\\\", \"thousands\": \"\\u2028\", \"quotechar\": \"\\\"\\\"\\\"\","
    "               \"comment\": \"')\\nimport os\\n#\", \"compression\": null, \"dtype\": {\"2\": \"str\"},"
    "               \"low_memory\": false},"
    "  \"dates\": {\"2\": \"%d.%m.%Y'\"}},"
    " \"ragged.csv\": {"
    "  \"read_csv\": {\"encoding\": \"utf-8\", \"sep\": \",\", \"header\": null, \"names\": [\"a'b\", \"c\\\"d\\u0085\"],"
    "               \"skiprows\": 4, \"quoting\": 3, \"compression\": \"gzip\", \"parse_dates\": [0],"
    "               \"low_memory\": false},"
    "  \"strip\": true, \"dates\": {\"0\": \"%Y-%m-%d\"}},"
    " \"one.zip\": {\"read_csv\": {\"encoding\": \"utf-8\", \"sep\": \",\", \"header\": 0, \"skiprows\": 0,"
    "                             \"compression\": null, \"low_memory\": false},"
    "              \"zip_member\": \"folder/in'side.csv\"},"
    " \"records.json\": {\"json\": {\"encoding\": \"utf-8-sig\", \"lines\": true, \"records\": \"it's\\n\"},"
    "                   \"dates\": {\"1\": \"%d/%m/%Y\"}},"
    " \"plain.json\": {\"json\": {\"encoding\": \"utf-8\", \"lines\": false, \"records\": null}},"
    " \"blank-key.json\": {\"json\": {\"encoding\": \"utf-8\", \"lines\": false, \"records\": \"\"}},"
    " \"book.xlsx\": {"
    "  \"read_excel\": {\"S'1\\n\": {\"header\": null, \"skiprows\": 2}, \"Two\": {\"header\": 0}},"
    "  \"sheet\": \"S'1\\n\"}}");
}

static void
write_sidecar (const char *ws,
               const char *file,
               const char *reading,
               gboolean    stale)
{
  g_autofree char *path = g_build_filename (ws, file, NULL);
  g_autofree char *dir = g_build_filename (ws, ".reckon", "readings", NULL);
  g_autofree char *side = NULL;
  g_autofree char *doc = NULL;
  g_autofree char *base = g_path_get_basename (file);
  struct stat st;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (stat (path, &st), ==, 0);
  side = g_strdup_printf ("%s/%s.json", dir, base);
  doc = g_strdup_printf ("{\"version\": 1, \"name\": \"%s\", \"size\": %" G_GINT64_FORMAT ", \"mtime_ns\": %" G_GINT64_FORMAT
                         ", \"reading\": %s}", file, (gint64) st.st_size + (stale ? 1 : 0),
                         (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, reading);
  g_assert_true (g_file_set_contents (side, doc, -1, NULL));
}

/* What reckon.load replayed (the record beside the file) wins; a stale
 * one, one naming a file elsewhere, or a symlink does not count. */
static void
test_saved_readings (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autofree char *ws = g_dir_make_tmp ("rk-prelude-XXXXXX", NULL);
  g_autofree char *prelude = NULL;
  g_autofree char *p = NULL;
  g_autofree char *link = NULL;
  g_autofree char *target = NULL;
  g_autoptr(RkWorkspace) handle = NULL;

  for (guint i = 0; i < 3; i++)
    {
      const char *names[] = { "fresh.csv", "stale.csv", "linked.csv" };
      g_free (p);
      p = g_build_filename (ws, names[i], NULL);
      g_assert_true (g_file_set_contents (p, "a;b\n1;2\n", -1, NULL));
    }
  write_sidecar (ws, "fresh.csv", "{\"format\": \"csv\", \"delimiter\": \"|\"}", FALSE);
  write_sidecar (ws, "stale.csv", "{\"format\": \"csv\", \"delimiter\": \"|\"}", TRUE);
  /* a record whose name points outside: ignored */
  g_free (p);
  p = g_build_filename (ws, ".reckon", "readings", "escape.json", NULL);
  g_assert_true (g_file_set_contents (p, "{\"version\": 1, \"name\": \"../x.csv\", \"size\": 0, \"mtime_ns\": 0,"
                                         " \"reading\": {\"format\": \"csv\"}}", -1, NULL));
  /* a record that is a symlink: not followed */
  write_sidecar (ws, "linked.csv", "{\"format\": \"csv\", \"delimiter\": \"|\"}", FALSE);
  target = g_build_filename (ws, "elsewhere.json", NULL);
  link = g_build_filename (ws, ".reckon", "readings", "linked.csv.json", NULL);
  g_assert_cmpint (g_rename (link, target), ==, 0);
  g_assert_cmpint (symlink (target, link), ==, 0);

  attach (t, "fresh.csv", "{\"reading\": {\"format\": \"csv\", \"delimiter\": \";\"}}");
  attach (t, "stale.csv", "{\"reading\": {\"format\": \"csv\", \"delimiter\": \";\"}}");
  attach (t, "linked.csv", "{\"reading\": {\"format\": \"csv\", \"delimiter\": \";\"}}");

  handle = rk_workspace_open (ws, NULL);
  prelude = rk_notebook_prelude (G_LIST_MODEL (t), handle);
  check_readings (prelude,
    "{\"fresh.csv\": {\"read_csv\": {\"encoding\": \"utf-8\", \"sep\": \"|\", \"header\": 0, \"skiprows\": 0,"
    "                              \"compression\": null, \"low_memory\": false}},"
    " \"stale.csv\": {\"read_csv\": {\"encoding\": \"utf-8\", \"sep\": \";\", \"header\": 0, \"skiprows\": 0,"
    "                              \"compression\": null, \"low_memory\": false}},"
    " \"linked.csv\": {\"read_csv\": {\"encoding\": \"utf-8\", \"sep\": \";\", \"header\": 0, \"skiprows\": 0,"
    "                               \"compression\": null, \"low_memory\": false}}}");

  {
    const char *rm[] = { "fresh.csv", "stale.csv", "linked.csv", "elsewhere.json",
                         ".reckon/readings/fresh.csv.json", ".reckon/readings/stale.csv.json",
                         ".reckon/readings/linked.csv.json", ".reckon/readings/escape.json" };
    for (guint i = 0; i < G_N_ELEMENTS (rm); i++)
      {
        g_free (p);
        p = g_build_filename (ws, rm[i], NULL);
        g_unlink (p);
      }
    g_free (p);
    p = g_build_filename (ws, ".reckon", "readings", NULL);
    g_rmdir (p);
    g_free (p);
    p = g_build_filename (ws, ".reckon", NULL);
    g_rmdir (p);
    g_rmdir (ws);
  }
}

/* No records at all: the stand-in still defines reckon.load (the guess). */
static void
test_no_records (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autofree char *prelude = rk_notebook_prelude (G_LIST_MODEL (t), NULL);

  g_assert_nonnull (strstr (prelude, "try:\n    import reckon\nexcept ImportError:\n"));
  g_assert_nonnull (strstr (prelude, "    _reckon_readings = {\n    }\n"));
  g_assert_nonnull (strstr (prelude, "reckon = types.SimpleNamespace(load=_reckon_load"));
  check_readings (prelude, "{}");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/notebook-prelude/hostile", test_hostile);
  g_test_add_func ("/rk/notebook-prelude/saved-readings", test_saved_readings);
  g_test_add_func ("/rk/notebook-prelude/no-records", test_no_records);

  return g_test_run ();
}
