/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-conversation-meta.c — conversation.json of a saved conversation:
 * round trip, and damaged or hostile files refused with one sentence. */
#include "config.h"

#include <string.h>

#include "rk-conversation-private.h"

static void
test_roundtrip (void)
{
  g_autoptr(RkConversationMeta) meta = _rk_conversation_meta_new ("abc-123");
  g_autoptr(RkConversationMeta) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json2 = NULL;

  meta->title = g_strdup ("Sales \"by\" month — é");
  meta->title_set = TRUE;
  meta->created = 1764470000000000;
  meta->updated = 1764470123000000;
  meta->session_id = g_strdup ("s-1");
  g_ptr_array_add (meta->names, g_strdup ("sales (2).csv"));
  g_ptr_array_add (meta->originals, g_strdup ("/home/ana/sales.csv"));

  json = _rk_conversation_meta_to_json (meta);
  back = _rk_conversation_meta_parse (json, strlen (json), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->id, ==, "abc-123");
  g_assert_cmpstr (back->title, ==, meta->title);
  g_assert_true (back->title_set);
  g_assert_cmpint (back->created, ==, meta->created);
  g_assert_cmpint (back->updated, ==, meta->updated);
  g_assert_cmpstr (back->session_id, ==, "s-1");
  g_assert_cmpuint (back->names->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (back->names, 0), ==, "sales (2).csv");
  g_assert_cmpstr (g_ptr_array_index (back->originals, 0), ==, "/home/ana/sales.csv");
  json2 = _rk_conversation_meta_to_json (back);
  g_assert_cmpstr (json, ==, json2);
}

static void
expect_corrupt (const char *json,
                gssize      len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkConversationMeta) meta = _rk_conversation_meta_parse (json, len < 0 ? strlen (json) : (gsize) len, &error);

  if (meta != NULL)
    g_error ("accepted: %s", json);
  g_assert_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_CORRUPT);
  g_assert_null (strchr (error->message, '\n'));
}

#define HEAD "{\"format\":\"reckon-conversation\",\"version\":1,"

static void
test_hostile (void)
{
  g_autoptr(GString) deep = g_string_new (HEAD "\"id\":\"a\",\"session\":\"b\",\"x\":");
  g_autoptr(GString) huge = g_string_new (HEAD "\"id\":\"a\",\"session\":\"b\",\"title\":\"");
  g_autoptr(GString) many = g_string_new (HEAD "\"id\":\"a\",\"session\":\"b\",\"files\":[");
  g_autoptr(RkConversationMeta) ok = NULL;

  expect_corrupt ("", 0);
  expect_corrupt ("null", -1);
  expect_corrupt ("[]", -1);
  expect_corrupt ("{\"format\":\"other\",\"version\":1,\"id\":\"a\",\"session\":\"b\"}", -1);
  expect_corrupt (HEAD "\"session\":\"b\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\"}", -1);
  expect_corrupt (HEAD "\"id\":\"../a\",\"session\":\"b\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a/b\",\"session\":\"b\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"..\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"/tmp\"}", -1);
  expect_corrupt (HEAD "\"id\":1,\"session\":\"b\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"created\":-5}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"created\":\"now\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"title_set\":1}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"files\":{}}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"files\":[{\"name\":\"../x\",\"original\":\"/x\"}]}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"files\":[{\"name\":\"x\",\"original\":\"relative\"}]}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"files\":[{\"name\":\"x\"}]}", -1);
  expect_corrupt (HEAD "\"id\":\"a\\u0000b\",\"session\":\"b\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\",\"title\":\"\xff\"}", -1);
  expect_corrupt (HEAD "\"id\":\"a\",\"session\":\"b\"", -1);

  for (guint i = 0; i < 100; i++)
    g_string_append_c (deep, '[');
  expect_corrupt (deep->str, -1);
  for (guint i = 0; i < (1u << 20); i++)
    g_string_append_c (huge, 'x');
  g_string_append (huge, "\"}");
  expect_corrupt (huge->str, -1);
  for (guint i = 0; i < 10001; i++)
    g_string_append (many, i ? ",{\"name\":\"x\",\"original\":\"/x\"}" : "{\"name\":\"x\",\"original\":\"/x\"}");
  g_string_append (many, "]}");
  expect_corrupt (many->str, -1);

  /* Unknown members are ignored; optional ones may be absent. */
  {
    const char *json = HEAD "\"id\":\"a\",\"session\":\"b\",\"future\":{\"x\":1}}";

    ok = _rk_conversation_meta_parse (json, strlen (json), NULL);
  }
  g_assert_nonnull (ok);
  g_assert_cmpuint (ok->names->len, ==, 0);
}

static void
test_newer (void)
{
  const char *json = "{\"format\":\"reckon-conversation\",\"version\":9,\"id\":\"a\",\"session\":\"b\"}";
  g_autoptr(GError) error = NULL;

  g_assert_null (_rk_conversation_meta_parse (json, strlen (json), &error));
  g_assert_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "newer"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/conversation-meta/roundtrip", test_roundtrip);
  g_test_add_func ("/rk/conversation-meta/hostile", test_hostile);
  g_test_add_func ("/rk/conversation-meta/newer", test_newer);

  return g_test_run ();
}
