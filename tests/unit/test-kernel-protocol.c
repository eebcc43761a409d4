/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-kernel-protocol.c — the kernel event parser and line splitter against
 * well-formed and hostile input. */
#include "config.h"

#include <string.h>

#include "rk-kernel-protocol.h"
#include "rk-util.h"

static RkKernelEvent *
parse_ok (const char *line)
{
  g_autoptr(GError) error = NULL;
  RkKernelEvent *ev = rk_kernel_event_parse (line, strlen (line), &error);

  g_assert_no_error (error);
  g_assert_nonnull (ev);
  return ev;
}

static void
parse_fails (const char *line,
             gsize       len,
             int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkKernelEvent) ev = NULL;

  if (len == (gsize) -1)
    len = strlen (line);
  ev = rk_kernel_event_parse (line, len, &error);
  g_assert_null (ev);
  g_assert_error (error, RK_PARSE_ERROR, code);
}

static void
test_valid_events (void)
{
  g_autoptr(RkKernelEvent) ready = parse_ok ("{\"type\":\"ready\",\"protocol\":1,\"python\":\"3.11.2\",\"pandas\":\"1.5.3\",\"matplotlib\":\"3.6.3\"}");
  g_autoptr(RkKernelEvent) stream = parse_ok ("{\"type\":\"stream\",\"id\":\"c7\",\"name\":\"stderr\",\"text\":\"h\\u00e9\\n\"}");
  g_autoptr(RkKernelEvent) table = parse_ok ("{\"type\":\"table\",\"id\":\"c7\",\"path\":\".reckon/tables/t3.rkt\",\"name\":\"df\",\"rows\":100,\"columns\":4,\"extra\":[1,2]}");
  g_autoptr(RkKernelEvent) figure = parse_ok ("{\"type\":\"figure\",\"id\":\"c7\",\"path\":\".reckon/figures/f2.png\",\"format\":\"png\",\"width\":800,\"height\":600}");
  g_autoptr(RkKernelEvent) file = parse_ok ("{\"type\":\"file\",\"id\":\"c7\",\"path\":\"out/summary.csv\",\"size\":1234,\"change\":\"modified\"}");
  g_autoptr(RkKernelEvent) err = parse_ok ("{\"type\":\"error\",\"id\":\"c7\",\"ename\":\"ZeroDivisionError\",\"evalue\":\"division by zero\",\"traceback\":\"…\"}");
  g_autoptr(RkKernelEvent) done = parse_ok ("{\"type\":\"done\",\"id\":\"c7\",\"status\":\"interrupted\",\"duration_ms\":12,\"truncated_bytes\":0}");
  g_autoptr(RkKernelEvent) chart = parse_ok ("{\"type\":\"chart\",\"id\":\"c7\",\"path\":\".reckon/charts/c1.json\",\"title\":null}");

  g_assert_cmpint (ready->type, ==, RK_KERNEL_EVENT_READY);
  g_assert_cmpint (ready->protocol, ==, 1);
  g_assert_cmpstr (ready->pandas, ==, "1.5.3");
  g_assert_null (ready->id);

  g_assert_cmpint (stream->type, ==, RK_KERNEL_EVENT_STREAM);
  g_assert_cmpint (stream->stream, ==, RK_KERNEL_STREAM_STDERR);
  g_assert_cmpstr (stream->text, ==, "hé\n");
  g_assert_cmpstr (stream->id, ==, "c7");

  g_assert_cmpstr (table->path, ==, ".reckon/tables/t3.rkt");
  g_assert_cmpstr (table->name, ==, "df");
  g_assert_cmpint (table->rows, ==, 100);
  g_assert_cmpint (table->columns, ==, 4);

  g_assert_cmpstr (figure->format, ==, "png");
  g_assert_cmpint (figure->width, ==, 800);
  g_assert_null (figure->title);
  {
    g_autoptr(RkKernelEvent) titled = parse_ok ("{\"type\":\"figure\",\"id\":\"c7\",\"path\":\"f.png\",\"format\":\"png\",\"width\":1,\"height\":1,\"title\":\"Correlation\"}");

    g_assert_cmpstr (titled->title, ==, "Correlation");
  }

  g_assert_cmpint (file->change, ==, RK_KERNEL_FILE_MODIFIED);
  g_assert_cmpint (file->size, ==, 1234);

  g_assert_cmpstr (err->ename, ==, "ZeroDivisionError");
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_INTERRUPTED);
  g_assert_cmpint (done->duration_ms, ==, 12);
  g_assert_null (chart->title);
}

static void
test_hostile_paths (void)
{
  static const char * const paths[] = {
    "../../etc/passwd", "/etc/passwd", "a/../../b", "..", ".", "", "a//b", "a/", "./a",
    "a/./b", "ok\\u0001name", "a\\nb",
  };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"type\":\"file\",\"id\":\"c1\",\"path\":\"%s\",\"size\":1,\"change\":\"created\"}", paths[i]);
      g_test_message ("path %s", paths[i]);
      parse_fails (line, strlen (line), RK_PARSE_ERROR_MALFORMED);
    }

  /* A path that is not a string at all. */
  parse_fails ("{\"type\":\"figure\",\"id\":\"c\",\"path\":[\"a\"],\"format\":\"png\",\"width\":1,\"height\":1}", (gsize) -1, RK_PARSE_ERROR_MALFORMED);
  {
    const char *l = "{\"type\":\"table\",\"id\":\"c\",\"path\":\"../t.rkt\",\"rows\":1,\"columns\":1}";
    parse_fails (l, strlen (l), RK_PARSE_ERROR_MALFORMED);
  }
}

static void
test_wrong_types (void)
{
  static const char * const lines[] = {
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"ok\",\"duration_ms\":1.5,\"truncated_bytes\":0}",
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"ok\",\"duration_ms\":\"1\",\"truncated_bytes\":0}",
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"ok\",\"duration_ms\":-1,\"truncated_bytes\":0}",
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"maybe\",\"duration_ms\":1,\"truncated_bytes\":0}",
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"ok\",\"duration_ms\":1e999,\"truncated_bytes\":0}",
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"ok\",\"duration_ms\":true,\"truncated_bytes\":0}",
    "{\"type\":\"done\",\"id\":\"c\",\"status\":\"ok\"}",
    "{\"type\":\"stream\",\"id\":7,\"name\":\"stdout\",\"text\":\"x\"}",
    "{\"type\":\"stream\",\"id\":\"\",\"name\":\"stdout\",\"text\":\"x\"}",
    "{\"type\":\"stream\",\"name\":\"stdout\",\"text\":\"x\"}",
    "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdin\",\"text\":\"x\"}",
    "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":{\"a\":1}}",
    "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":null}",
    "{\"type\":\"figure\",\"id\":\"c\",\"path\":\"f.png\",\"format\":\"gif\",\"width\":1,\"height\":1}",
    "{\"type\":\"figure\",\"id\":\"c\",\"path\":\"f.png\",\"format\":\"png\",\"width\":99999999,\"height\":1}",
    "{\"type\":\"figure\",\"id\":\"c\",\"path\":\"f.png\",\"format\":\"png\",\"width\":1,\"height\":1,\"title\":5}",
    "{\"type\":\"figure\",\"id\":\"c\",\"path\":\"f.png\",\"format\":\"png\",\"width\":1,\"height\":1,\"title\":[\"a\"]}",
    "{\"type\":\"table\",\"id\":\"c\",\"path\":\"t.rkt\",\"rows\":1,\"columns\":1,\"name\":3}",
    "{\"type\":\"ready\",\"protocol\":\"1\"}",
    "{\"type\":7}",
    "{\"id\":\"c\"}",
    "[1,2,3]",
    "\"ready\"",
    "42",
    "null",
    "",
    "{",
    "{\"type\":\"done\",}",
    "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":\"x\"} trailing",
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RkKernelEvent) ev = rk_kernel_event_parse (lines[i], strlen (lines[i]), &error);

      g_test_message ("line %s", lines[i]);
      g_assert_null (ev);
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
    }

  parse_fails ("{\"type\":\"exec\",\"id\":\"c\"}", (gsize) -1, RK_PARSE_ERROR_UNSUPPORTED);
}

/* The nonce and an error's limit: typed, bounded, and a limit the kernel
 * cannot see (or a made-up one) is not kept. */
static void
test_nonce_and_limit (void)
{
  g_autoptr(RkKernelEvent) ev = NULL;
  g_autoptr(RkKernelEvent) mem = NULL;
  g_autoptr(RkKernelEvent) evil = NULL;
  g_autoptr(RkKernelEvent) bare = NULL;
  g_autofree char *long_nonce = g_strdup_printf ("{\"type\":\"started\",\"id\":\"c\",\"nonce\":\"%0*d\"}", 65, 0);

  ev = parse_ok ("{\"type\":\"started\",\"id\":\"c\",\"nonce\":\"00ff\"}");
  g_assert_cmpstr (ev->nonce, ==, "00ff");
  bare = parse_ok ("{\"type\":\"started\",\"id\":\"c\"}");
  g_assert_null (bare->nonce);
  parse_fails ("{\"type\":\"started\",\"id\":\"c\",\"nonce\":7}", (gsize) -1, RK_PARSE_ERROR_MALFORMED);
  parse_fails ("{\"type\":\"started\",\"id\":\"c\",\"nonce\":[\"a\"]}", (gsize) -1, RK_PARSE_ERROR_MALFORMED);
  parse_fails (long_nonce, (gsize) -1, RK_PARSE_ERROR_TOO_LARGE);

  mem = parse_ok ("{\"type\":\"error\",\"id\":\"c\",\"ename\":\"MemoryError\",\"evalue\":\"\",\"traceback\":\"\",\"limit\":\"memory\"}");
  g_assert_cmpint (mem->limit, ==, RK_SANDBOX_LIMIT_MEMORY);
  {
    g_autoptr(RkKernelEvent) disk = parse_ok ("{\"type\":\"error\",\"id\":\"c\",\"ename\":\"OSError\",\"evalue\":\"\",\"traceback\":\"\",\"limit\":\"disk\"}");
    g_autoptr(RkKernelEvent) files = parse_ok ("{\"type\":\"error\",\"id\":\"c\",\"ename\":\"OSError\",\"evalue\":\"\",\"traceback\":\"\",\"limit\":\"files\"}");
    g_autoptr(RkKernelEvent) other = parse_ok ("{\"type\":\"error\",\"id\":\"c\",\"ename\":\"E\",\"evalue\":\"\",\"traceback\":\"\",\"limit\":\"time\"}");
    g_assert_cmpint (disk->limit, ==, RK_SANDBOX_LIMIT_DISK);
    g_assert_cmpint (files->limit, ==, RK_SANDBOX_LIMIT_FILES);
    g_assert_cmpint (other->limit, ==, RK_SANDBOX_LIMIT_NONE);
  }
  evil = parse_ok ("{\"type\":\"error\",\"id\":\"c\",\"ename\":\"E\",\"evalue\":\"\",\"traceback\":\"\",\"limit\":\"disk\\u001b[2J\"}");
  g_assert_cmpint (evil->limit, ==, RK_SANDBOX_LIMIT_NONE);
  parse_fails ("{\"type\":\"error\",\"id\":\"c\",\"ename\":\"E\",\"evalue\":\"\",\"traceback\":\"\",\"limit\":1}",
               (gsize) -1, RK_PARSE_ERROR_MALFORMED);
}

static void
test_bytes (void)
{
  const char bad_utf8[] = "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":\"\xff\xfe\"}";
  const char overlong[] = "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":\"\xc0\xaf\"}";
  const char with_nul[] = "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":\"a\0b\"}";
  const char surrogate[] = "{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":\"\\ud800\"}";
  g_autoptr(GString) deep = g_string_new ("{\"type\":\"stream\",\"id\":\"c\",\"name\":\"stdout\",\"text\":\"x\",\"x\":");
  g_autofree char *huge = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkKernelEvent) ev = NULL;

  parse_fails (bad_utf8, sizeof bad_utf8 - 1, RK_PARSE_ERROR_MALFORMED);
  parse_fails (overlong, sizeof overlong - 1, RK_PARSE_ERROR_MALFORMED);
  parse_fails (with_nul, sizeof with_nul - 1, RK_PARSE_ERROR_MALFORMED);

  /* A lone surrogate escape must not come out as invalid UTF-8. */
  ev = rk_kernel_event_parse (surrogate, sizeof surrogate - 1, &error);
  if (ev != NULL)
    g_assert_true (g_utf8_validate (ev->text, -1, NULL));
  g_clear_pointer (&ev, rk_kernel_event_unref);
  g_clear_error (&error);

  /* Deep nesting is refused before json-glib's recursive parser sees it. */
  for (int i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  parse_fails (deep->str, deep->len, RK_PARSE_ERROR_TOO_LARGE);

  /* Over the line limit. */
  huge = g_malloc (RK_KERNEL_MAX_LINE + 2);
  memset (huge, ' ', RK_KERNEL_MAX_LINE + 1);
  huge[RK_KERNEL_MAX_LINE + 1] = '\0';
  parse_fails (huge, RK_KERNEL_MAX_LINE + 1, RK_PARSE_ERROR_TOO_LARGE);

  /* Escapes inside strings do not confuse the depth check. */
  g_clear_pointer (&ev, rk_kernel_event_unref);
  ev = parse_ok ("{\"type\":\"result\",\"id\":\"c\",\"text\":\"[[[[[[[[[[[[[[[[[[\\\"{{{{{{{{{{{{{\"}");
  g_assert_cmpstr (ev->text, ==, "[[[[[[[[[[[[[[[[[[\"{{{{{{{{{{{{{");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/kernel-protocol/valid", test_valid_events);
  g_test_add_func ("/rk/kernel-protocol/hostile-paths", test_hostile_paths);
  g_test_add_func ("/rk/kernel-protocol/wrong-types", test_wrong_types);
  g_test_add_func ("/rk/kernel-protocol/bytes", test_bytes);
  g_test_add_func ("/rk/kernel-protocol/nonce-and-limit", test_nonce_and_limit);

  return g_test_run ();
}
