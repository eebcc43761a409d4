/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-model-replies.c — model lists, capabilities and version reports from
 * model servers, well-formed and hostile. */
#include "config.h"

#include <string.h>

#include "rk-model-replies.h"
#include "rk-util.h"

static GPtrArray *
list (RkModelApi  api,
      const char *json,
      gsize       len)
{
  g_autoptr(GBytes) body = g_bytes_new (json, len == 0 ? strlen (json) : len);

  return rk_model_replies_parse_list (api, body, NULL);
}

static void
test_lists (void)
{
  g_autoptr(GPtrArray) a = list (RK_MODEL_API_OLLAMA,
                                 "{\"models\":[{\"name\":\"qwen2.5-coder:7b\"},{\"model\":\"llama3\"},"
                                 "7,{\"name\":\"\"},{\"name\":3},null]}", 0);
  g_autoptr(GPtrArray) b = list (RK_MODEL_API_OPENAI, "{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}", 0);
  g_autoptr(GPtrArray) c = list (RK_MODEL_API_OLLAMA, "{\"models\":null}", 0);

  g_assert_cmpuint (a->len, ==, 2);
  g_assert_cmpstr (((RkModelInfo *) a->pdata[0])->name, ==, "qwen2.5-coder:7b");
  g_assert_cmpstr (((RkModelInfo *) a->pdata[1])->name, ==, "llama3");
  g_assert_cmpuint (b->len, ==, 1);
  g_assert_cmpuint (c->len, ==, 0);
}

static void
test_hostile_lists (void)
{
  static const char *bad[] = {
    "", "null", "[]", "{}", "{\"models\":{}}", "{\"data\":\"x\"}", "<html>404</html>",
    "{\"models\":[", "{\"models\":[{\"name\":\"a\"}]",  /* truncated */
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) huge = g_string_new ("{\"models\":[");
  g_autofree char *long_name = g_strnfill (2000, 'n');
  g_autoptr(GPtrArray) many = NULL;
  g_autoptr(GPtrArray) nul = NULL;
  g_autoptr(GBytes) invalid = g_bytes_new_static ("{\"models\":[{\"name\":\"\xff\"}]}", 26);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GBytes) body = g_bytes_new_static (bad[i], strlen (bad[i]));

      g_assert_null (rk_model_replies_parse_list (RK_MODEL_API_OLLAMA, body, &error));
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
      g_clear_error (&error);
    }
  g_assert_null (rk_model_replies_parse_list (RK_MODEL_API_OPENAI, NULL, NULL));
  g_assert_null (rk_model_replies_parse_list (RK_MODEL_API_OLLAMA, invalid, NULL));

  /* More than 10,000 models, and one name too long to be a name. */
  for (guint i = 0; i < 10050; i++)
    g_string_append_printf (huge, "%s{\"name\":\"m%u\"}", i ? "," : "", i);
  g_string_append_printf (huge, ",{\"name\":\"%s\"}]}", long_name);
  many = list (RK_MODEL_API_OLLAMA, huge->str, 0);
  g_assert_cmpuint (many->len, ==, 10000);

  /* A NUL inside the body is not JSON. */
  nul = list (RK_MODEL_API_OPENAI, "{\"data\":[{\"id\":\"a\"}]}\0{}", 24);
  g_assert_null (nul);
}

static void
test_capabilities (void)
{
  static const struct { const char *json; gboolean known, tools; } cases[] = {
    { "{\"capabilities\":[\"completion\",\"tools\"]}", TRUE, TRUE },
    { "{\"capabilities\":[\"completion\"]}", TRUE, FALSE },
    { "{\"capabilities\":[1,null,{\"tools\":1},\"TOOLS\"]}", TRUE, FALSE },
    { "{\"capabilities\":\"tools\"}", FALSE, FALSE },
    { "{\"modelfile\":\"…\"}", FALSE, FALSE },
    { "[\"tools\"]", FALSE, FALSE },
    { "{\"capabilities\":[\"tools\"", FALSE, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) body = g_bytes_new_static (cases[i].json, strlen (cases[i].json));
      gboolean tools = TRUE;

      g_assert_cmpint (rk_model_replies_parse_capabilities (body, &tools), ==, cases[i].known);
      g_assert_cmpint (tools, ==, cases[i].tools);
    }
}

static void
test_versions (void)
{
  static const struct { const char *json, *member, *want; } cases[] = {
    { "{\"version\":\"0.5.7\"}", "version", "0.5.7" },
    { "{\"build_info\":\"b4500-1a2b3c\",\"total_slots\":1}", "build_info", "b4500-1a2b3c" },
    { "{\"version\":\"  1.2\\n\\rfake line\\u001b]0;title\\u0007 \"}", "version", "1.2  fake line" },
    { "{\"version\":\"\\u202eevil\\u202c\"}", "version", "evil" },
    { "{\"version\":\"\\u001b[31m\"}", "version", NULL },
    { "{\"version\":5}", "version", NULL },
    { "{\"version\":null}", "version", NULL },
    { "{\"other\":\"1\"}", "version", NULL },
    { "\"0.5.7\"", "version", NULL },
    { "{\"version\":\"0.5", "version", NULL },
    { "", "version", NULL },
  };
  g_autofree char *long_json = NULL;
  g_autofree char *long_version = g_strnfill (500, '9');
  g_autoptr(GBytes) long_body = NULL;
  g_autofree char *cut = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) body = g_bytes_new_static (cases[i].json, strlen (cases[i].json));
      g_autofree char *got = rk_model_replies_parse_version (body, cases[i].member);

      g_assert_cmpstr (got, ==, cases[i].want);
    }
  long_json = g_strdup_printf ("{\"version\":\"%s\"}", long_version);
  long_body = g_bytes_new (long_json, strlen (long_json));
  cut = rk_model_replies_parse_version (long_body, "version");
  g_assert_cmpuint (strlen (cut), ==, 80);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/model-replies/lists", test_lists);
  g_test_add_func ("/rk/model-replies/hostile-lists", test_hostile_lists);
  g_test_add_func ("/rk/model-replies/capabilities", test_capabilities);
  g_test_add_func ("/rk/model-replies/versions", test_versions);
  return g_test_run ();
}
