/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-conversation-file.c — RkConversationFile as a window binds to it:
 * each property notifies once per change and never without one, the
 * estimate and progress go with the profile, and nothing keeps it alive. */
#define G_LOG_DOMAIN "test-conversation-file"
#include "config.h"

#include "rk-conversation-file-private.h"

typedef struct
{
  guint n[16];          /* notify emissions, by property id order below */
} Counts;

static const char *const props[] = {
  "name", "original", "profile", "estimate", "progress", "state", "copied",
};

static void
notify_cb (GObject    *object,
           GParamSpec *pspec,
           Counts     *counts)
{
  for (guint i = 0; i < G_N_ELEMENTS (props); i++)
    if (g_str_equal (g_param_spec_get_name (pspec), props[i]))
      {
        counts->n[i]++;
        return;
      }
  g_assert_not_reached ();
}

static guint
count (Counts     *counts,
       const char *prop)
{
  for (guint i = 0; i < G_N_ELEMENTS (props); i++)
    if (g_str_equal (props[i], prop))
      return counts->n[i];
  g_assert_not_reached ();
}

static guint
total (Counts *counts)
{
  guint sum = 0;

  for (guint i = 0; i < G_N_ELEMENTS (props); i++)
    sum += counts->n[i];
  return sum;
}

static void
test_defaults (void)
{
  RkConversationFile *file = _rk_conversation_file_new ("sales.csv", "/home/ana/sales.csv");
  g_autofree char *name = NULL;
  RkConversationFileState state;
  double progress;

  g_assert_cmpstr (rk_conversation_file_get_name (file), ==, "sales.csv");
  g_assert_cmpstr (rk_conversation_file_get_original (file), ==, "/home/ana/sales.csv");
  g_assert_null (rk_conversation_file_get_profile (file));
  g_assert_null (rk_conversation_file_get_estimate (file));
  g_assert_cmpfloat (rk_conversation_file_get_progress (file), ==, -1);
  g_assert_cmpint (rk_conversation_file_get_state (file), ==, RK_CONVERSATION_FILE_COPYING);
  g_assert_true (rk_conversation_file_get_busy (file));
  g_assert_false (rk_conversation_file_get_copied (file));
  g_assert_cmpuint (rk_conversation_file_get_entry_id (file), ==, 0);
  /* The same through GObject, as a binding reads it. */
  g_object_get (file, "name", &name, "state", &state, "progress", &progress, NULL);
  g_assert_cmpstr (name, ==, "sales.csv");
  g_assert_cmpint (state, ==, RK_CONVERSATION_FILE_COPYING);
  g_assert_cmpfloat (progress, ==, -1);
  g_assert_true (G_TYPE_IS_ENUM (RK_TYPE_CONVERSATION_FILE_STATE));
  g_assert_finalize_object (file);
}

/* Every property is read-only: a UI binds to it, only the conversation
 * changes it. */
static void
test_read_only (void)
{
  g_autoptr(GTypeClass) klass = g_type_class_ref (RK_TYPE_CONVERSATION_FILE);

  for (guint i = 0; i < G_N_ELEMENTS (props); i++)
    {
      GParamSpec *pspec = g_object_class_find_property (G_OBJECT_CLASS (klass), props[i]);

      g_assert_nonnull (pspec);
      g_assert_true (pspec->flags & G_PARAM_READABLE);
      g_assert_false (pspec->flags & G_PARAM_WRITABLE);
      g_assert_true (pspec->flags & G_PARAM_EXPLICIT_NOTIFY);
    }
}

/* A file's life as the conversation drives it: each change notified once,
 * a repeated value not at all. */
static void
test_notify (void)
{
  RkConversationFile *file = _rk_conversation_file_new ("sales.csv", NULL);
  g_autoptr(RkFileProfile) seen = NULL;
  Counts counts = { 0 };

  g_signal_connect (file, "notify", G_CALLBACK (notify_cb), &counts);

  _rk_conversation_file_set_name (file, "sales.csv");
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_COPYING);
  _rk_conversation_file_set_progress (file, -1);
  _rk_conversation_file_set_progress (file, -7);   /* any negative: not known */
  _rk_conversation_file_take_estimate (file, NULL);
  _rk_conversation_file_take_profile (file, NULL);
  _rk_conversation_file_set_copied (file, FALSE);
  g_assert_cmpuint (total (&counts), ==, 0);

  /* Copied under another name, waits, is read. */
  _rk_conversation_file_set_name (file, "sales (2).csv");
  _rk_conversation_file_set_name (file, "sales (2).csv");
  g_assert_cmpuint (count (&counts, "name"), ==, 1);
  _rk_conversation_file_set_copied (file, TRUE);
  _rk_conversation_file_set_copied (file, 2);      /* still TRUE */
  g_assert_cmpuint (count (&counts, "copied"), ==, 1);
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_WAITING);
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_PROFILING);
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_PROFILING);
  g_assert_cmpuint (count (&counts, "state"), ==, 2);
  g_assert_false (rk_conversation_file_get_profile (file) != NULL);

  _rk_conversation_file_set_progress (file, 0.25);
  _rk_conversation_file_set_progress (file, 0.25);
  _rk_conversation_file_set_progress (file, 0.5);
  _rk_conversation_file_set_progress (file, 3.0);  /* more than all: all */
  _rk_conversation_file_set_progress (file, 1.0);
  g_assert_cmpuint (count (&counts, "progress"), ==, 3);
  g_assert_cmpfloat (rk_conversation_file_get_progress (file), ==, 1.0);

  _rk_conversation_file_take_estimate (file, rk_file_profile_new_error ("sales (2).csv", "sample"));
  g_assert_cmpuint (count (&counts, "estimate"), ==, 1);
  g_object_get (file, "estimate", &seen, NULL);
  g_assert_cmpstr (seen->error, ==, "sample");

  /* The profile comes: the estimate and the progress go with it, each
   * notified once. */
  _rk_conversation_file_take_profile (file, rk_file_profile_new_error ("sales (2).csv", "exact"));
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_READY);
  g_assert_cmpuint (count (&counts, "profile"), ==, 1);
  g_assert_cmpuint (count (&counts, "estimate"), ==, 2);
  g_assert_cmpuint (count (&counts, "progress"), ==, 4);
  g_assert_null (rk_conversation_file_get_estimate (file));
  g_assert_cmpfloat (rk_conversation_file_get_progress (file), ==, -1);
  g_assert_cmpstr (rk_conversation_file_get_profile (file)->error, ==, "exact");
  g_assert_false (rk_conversation_file_get_busy (file));

  /* Read again with other choices. */
  _rk_conversation_file_take_profile (file, NULL);
  g_assert_cmpuint (count (&counts, "profile"), ==, 2);
  g_assert_cmpuint (count (&counts, "estimate"), ==, 2);
  g_assert_cmpuint (count (&counts, "progress"), ==, 4);

  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_REMOVED);
  g_assert_false (rk_conversation_file_get_busy (file));
  g_assert_cmpuint (count (&counts, "state"), ==, 4);
  g_assert_cmpuint (count (&counts, "original"), ==, 0);
  g_assert_cmpuint (total (&counts), ==, 1 + 1 + 4 + 4 + 2 + 2);

  g_signal_handlers_disconnect_by_data (file, &counts);
  g_assert_finalize_object (file);
}

/* Notified while frozen: once each, after the thaw (a profile coming with
 * its state, as rk-conversation.c does it). */
static void
test_freeze (void)
{
  RkConversationFile *file = _rk_conversation_file_new ("a.csv", NULL);
  Counts counts = { 0 };

  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_PROFILING);
  _rk_conversation_file_set_progress (file, 0.5);
  g_signal_connect (file, "notify", G_CALLBACK (notify_cb), &counts);
  g_object_freeze_notify (G_OBJECT (file));
  _rk_conversation_file_set_state (file, RK_CONVERSATION_FILE_FAILED);
  _rk_conversation_file_take_profile (file, rk_file_profile_new_error ("a.csv", "stopped"));
  g_assert_cmpuint (total (&counts), ==, 0);
  g_object_thaw_notify (G_OBJECT (file));
  g_assert_cmpuint (count (&counts, "state"), ==, 1);
  g_assert_cmpuint (count (&counts, "profile"), ==, 1);
  g_assert_cmpuint (count (&counts, "progress"), ==, 1);
  g_assert_cmpuint (total (&counts), ==, 3);
  g_signal_handlers_disconnect_by_data (file, &counts);
  g_assert_finalize_object (file);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/conversation-file/defaults", test_defaults);
  g_test_add_func ("/rk/conversation-file/read-only", test_read_only);
  g_test_add_func ("/rk/conversation-file/notify", test_notify);
  g_test_add_func ("/rk/conversation-file/freeze", test_freeze);
  return g_test_run ();
}
