/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-conversation-meta.c — conversation.json of a saved conversation:
 * round trip, damaged or hostile files refused with one sentence; and the
 * store's list of them (no sandbox needed). */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "rk-conversation-store-private.h"
#include "rk-conversation-store.h"
#include "rk-workspace.h"

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
  g_ptr_array_add (meta->files, rk_session_file_new ("sales (2).csv", "/home/ana/sales.csv"));

  json = _rk_conversation_meta_to_json (meta);
  back = _rk_conversation_meta_parse (json, strlen (json), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->id, ==, "abc-123");
  g_assert_cmpstr (back->title, ==, meta->title);
  g_assert_true (back->title_set);
  g_assert_cmpint (back->created, ==, meta->created);
  g_assert_cmpint (back->updated, ==, meta->updated);
  g_assert_cmpstr (back->session_id, ==, "s-1");
  g_assert_cmpuint (back->files->len, ==, 1);
  g_assert_cmpstr (((RkSessionFile *) g_ptr_array_index (back->files, 0))->name, ==, "sales (2).csv");
  g_assert_cmpstr (((RkSessionFile *) g_ptr_array_index (back->files, 0))->original_path, ==, "/home/ana/sales.csv");
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
  g_assert_cmpuint (ok->files->len, ==, 0);
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

static void
count_cb (GListModel *model,
          guint       position,
          guint       removed,
          guint       added,
          guint      *n)
{
  (*n)++;
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *n)
{
  (*n)++;
}

static RkConversationMeta *
meta_at (const char *id,
         gint64      updated)
{
  RkConversationMeta *meta = _rk_conversation_meta_new (id);

  meta->title = g_strdup (id);
  meta->session_id = g_strdup_printf ("session-%s", id);
  meta->created = 1;
  meta->updated = updated;
  return meta;
}

static const char *
id_at (RkConversationStore *store,
       guint                position)
{
  g_autoptr(RkConversationInfo) info = g_list_model_get_item (G_LIST_MODEL (store), position);

  return info ? g_intern_string (rk_conversation_info_get_id (info)) : NULL;
}

/* The list: newest first; an item that keeps its place only notifies;
 * a new store reads the same order from disk; delete removes it all. */
static void
test_store_list (void)
{
  g_autofree char *root = g_dir_make_tmp ("rk-store-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, "conversations", NULL);
  g_autofree char *sessions = g_build_filename (root, "sessions", NULL);
  g_autofree char *workspace_a = g_build_filename (sessions, "session-a", NULL);
  g_autoptr(GError) error = NULL;
  RkConversationStore *store;
  g_autoptr(RkConversationStore) again = NULL;
  g_autoptr(RkConversationMeta) a = meta_at ("a", 10);
  g_autoptr(RkConversationMeta) b = meta_at ("b", 20);
  RkConversationInfo *info_b;
  guint changes = 0, notifies = 0;

  store = rk_conversation_store_new (dir, sessions, &error);
  g_assert_no_error (error);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (store)) == RK_TYPE_CONVERSATION_INFO);
  g_signal_connect (store, "items-changed", G_CALLBACK (count_cb), &changes);
  g_assert_true (_rk_conversation_store_save (store, a, FALSE, &error));
  g_assert_true (_rk_conversation_store_save (store, b, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changes, ==, 2);
  g_assert_cmpstr (id_at (store, 0), ==, "b");
  g_assert_cmpstr (id_at (store, 1), ==, "a");

  /* b grows and stays first: its row is only notified. */
  info_b = rk_conversation_store_lookup (store, "b");
  g_signal_connect (info_b, "notify::updated", G_CALLBACK (count_notify_cb), &notifies);
  b->updated = 30;
  g_assert_true (_rk_conversation_store_save (store, b, FALSE, NULL));
  g_assert_cmpuint (changes, ==, 2);
  g_assert_cmpuint (notifies, ==, 1);
  g_signal_handlers_disconnect_by_data (info_b, &notifies);

  /* a moves to the top. */
  a->updated = 40;
  g_assert_true (_rk_conversation_store_save (store, a, TRUE, NULL));
  g_assert_cmpuint (changes, ==, 4);
  g_assert_cmpstr (id_at (store, 0), ==, "a");
  g_assert_true (rk_conversation_info_get_expired (rk_conversation_store_lookup (store, "a")));

  /* A new start reads the same list (a's workspace is gone: expired). */
  again = rk_conversation_store_new (dir, sessions, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (again)), ==, 2);
  g_assert_cmpstr (id_at (again, 0), ==, "a");
  g_assert_cmpstr (id_at (again, 1), ==, "b");
  g_assert_true (rk_conversation_info_get_expired (rk_conversation_store_lookup (again, "a")));

  /* Delete: the folder and the session's workspace go. */
  g_assert_cmpint (g_mkdir_with_parents (workspace_a, 0700), ==, 0);
  g_assert_true (rk_conversation_store_delete (store, "a", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changes, ==, 5);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store)), ==, 1);
  g_assert_false (g_file_test (workspace_a, G_FILE_TEST_EXISTS));
  g_assert_false (rk_conversation_store_delete (store, "a", &error));
  g_assert_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_NOT_FOUND);

  g_signal_handlers_disconnect_by_data (store, &changes);
  g_assert_finalize_object (store);
  rk_workspace_delete_folder (root, NULL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/conversation-meta/roundtrip", test_roundtrip);
  g_test_add_func ("/rk/conversation-meta/hostile", test_hostile);
  g_test_add_func ("/rk/conversation-meta/newer", test_newer);
  g_test_add_func ("/rk/conversation-store/list", test_store_list);

  return g_test_run ();
}
