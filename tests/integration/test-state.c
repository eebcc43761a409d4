/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-state.c — the properties a window binds: RkKernel:state in the real
 * sandbox, RkSession:state, :expiry-time and :warned on a fake clock. Each
 * counts notify emissions and checks the object is finalized at the end. */
#include "config.h"

#include <glib/gstdio.h>

#include "rk-enum-types.h"
#include "rk-session.h"
#include "rk-test-kernel.h"
#include "rk-workspace.h"

typedef struct
{
  guint   n_notify;
  GArray *states;       /* the value read in each notify */
} Notes;

static void
notify_state_cb (GObject    *object,
                 GParamSpec *pspec,
                 Notes      *notes)
{
  int state;

  g_object_get (object, "state", &state, NULL);
  notes->n_notify++;
  g_array_append_val (notes->states, state);
}

static void
notify_count_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

static void
test_enum_types (void)
{
  g_autoptr(GEnumClass) kernel_states = g_type_class_ref (RK_TYPE_KERNEL_STATE);
  g_autoptr(GEnumClass) session_states = g_type_class_ref (RK_TYPE_SESSION_STATE);
  gpointer kernel_class;
  GParamSpec *pspec;

  g_assert_cmpstr (g_enum_get_value (kernel_states, RK_KERNEL_STATE_BUSY)->value_nick, ==, "busy");
  g_assert_cmpstr (g_enum_get_value (session_states, RK_SESSION_EXPIRED)->value_nick, ==, "expired");
  g_assert_true (G_TYPE_IS_ENUM (RK_TYPE_ENTRY_KIND));
  g_assert_true (G_TYPE_IS_ENUM (RK_TYPE_AGENT_DECISION));

  kernel_class = g_type_class_ref (RK_TYPE_KERNEL);
  pspec = g_object_class_find_property (kernel_class, "state");
  g_assert_nonnull (pspec);
  g_assert_true (pspec->value_type == RK_TYPE_KERNEL_STATE);
  g_assert_false (pspec->flags & G_PARAM_WRITABLE);
  g_type_class_unref (kernel_class);
}

/* Start, run a cell, shut down: every state change is notified once, in
 * order, and the property reads the new value inside the notification. */
static void
test_kernel_state (void)
{
  RkTestKernel tk;
  Notes notes = { 0, g_array_new (FALSE, FALSE, sizeof (int)) };
  RkKernelEvent *done;

  if (!rk_test_kernel_init (&tk, NULL))
    {
      g_array_unref (notes.states);
      return;
    }
  g_signal_connect (tk.kernel, "notify::state", G_CALLBACK (notify_state_cb), &notes);

  rk_test_kernel_start (&tk);
  g_assert_cmpint (rk_kernel_get_state (tk.kernel), ==, RK_KERNEL_STATE_IDLE);
  g_assert_cmpuint (notes.n_notify, ==, 2);
  g_assert_cmpint (g_array_index (notes.states, int, 0), ==, RK_KERNEL_STATE_STARTING);
  g_assert_cmpint (g_array_index (notes.states, int, 1), ==, RK_KERNEL_STATE_IDLE);

  done = rk_test_kernel_run (&tk, "x = 1 + 1\n");
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  g_assert_cmpuint (notes.n_notify, ==, 4);
  g_assert_cmpint (g_array_index (notes.states, int, 2), ==, RK_KERNEL_STATE_BUSY);
  g_assert_cmpint (g_array_index (notes.states, int, 3), ==, RK_KERNEL_STATE_IDLE);

  rk_kernel_shutdown (tk.kernel);
  g_assert_cmpint (rk_kernel_get_state (tk.kernel), ==, RK_KERNEL_STATE_STOPPED);
  g_assert_cmpuint (notes.n_notify, ==, 5);
  g_assert_cmpint (g_array_index (notes.states, int, 4), ==, RK_KERNEL_STATE_STOPPED);
  g_signal_handlers_disconnect_by_data (tk.kernel, &notes);

  /* Shuts down again (nothing to do) and asserts the kernel is finalized. */
  rk_test_kernel_teardown (&tk, NULL);
  g_array_unref (notes.states);
}

/* Session state and expiry on a fake clock: no sandbox needed, since the
 * kernel is never made. */
static void
test_session_state (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-state-XXXXXX", NULL);
  g_autoptr(RkClock) clock = rk_fake_clock_new ();
  g_autoptr(GError) error = NULL;
  Notes notes = { 0, g_array_new (FALSE, FALSE, sizeof (int)) };
  guint n_expiry = 0, n_warned = 0;
  g_autofree char *workspace = NULL;
  RkSession *session;
  gint64 expiry;

  session = rk_session_new (dir, clock, &error);
  g_assert_no_error (error);
  workspace = g_strdup (rk_workspace_get_path (rk_session_get_workspace (session)));
  g_signal_connect (session, "notify::state", G_CALLBACK (notify_state_cb), &notes);
  g_signal_connect (session, "notify::expiry-time", G_CALLBACK (notify_count_cb), &n_expiry);
  g_signal_connect (session, "notify::warned", G_CALLBACK (notify_count_cb), &n_warned);

  rk_session_set_idle_timeout (session, 60);
  expiry = rk_session_get_expiry_time (session);
  g_assert_cmpint (expiry, >, 0);
  g_object_get (session, "expiry-time", &expiry, NULL);
  g_assert_cmpint (expiry, ==, rk_session_get_expiry_time (session));
  n_expiry = 0;

  /* Activity within the same second moves expiry by less than a second:
   * no notification; a second later, one. */
  rk_fake_clock_advance (RK_FAKE_CLOCK (clock), 200000);
  rk_session_keep_alive (session);
  g_assert_cmpuint (n_expiry, ==, 0);
  rk_fake_clock_advance (RK_FAKE_CLOCK (clock), G_USEC_PER_SEC);
  rk_session_keep_alive (session);
  g_assert_cmpuint (n_expiry, ==, 1);

  /* Halfway (a short timeout warns halfway): warned turns on once. */
  rk_fake_clock_advance (RK_FAKE_CLOCK (clock), 31 * G_USEC_PER_SEC);
  g_assert_true (rk_session_get_warned (session));
  g_assert_cmpuint (n_warned, ==, 1);
  /* Keep alive: off again. */
  rk_session_keep_alive (session);
  g_assert_false (rk_session_get_warned (session));
  g_assert_cmpuint (n_warned, ==, 2);
  g_assert_cmpuint (n_expiry, ==, 2);
  g_assert_cmpuint (notes.n_notify, ==, 0);

  /* Expiry: state EXPIRED once, expiry-time 0, warned stays off. */
  rk_fake_clock_advance (RK_FAKE_CLOCK (clock), 61 * G_USEC_PER_SEC);
  g_assert_cmpint (rk_session_get_state (session), ==, RK_SESSION_EXPIRED);
  g_assert_cmpuint (notes.n_notify, ==, 1);
  g_assert_cmpint (g_array_index (notes.states, int, 0), ==, RK_SESSION_EXPIRED);
  g_assert_cmpint (rk_session_get_expiry_time (session), ==, 0);
  g_assert_cmpuint (n_expiry, ==, 3);
  g_assert_false (g_file_test (workspace, G_FILE_TEST_EXISTS));
  /* Expiring again changes nothing. */
  rk_session_expire (session);
  g_assert_cmpuint (notes.n_notify, ==, 1);

  g_signal_handlers_disconnect_by_data (session, &notes);
  g_signal_handlers_disconnect_by_data (session, &n_expiry);
  g_signal_handlers_disconnect_by_data (session, &n_warned);
  g_assert_finalize_object (session);
  g_array_unref (notes.states);
  rk_workspace_delete_folder (dir, NULL);
}

/* A restored session: active while its workspace is there, expired when
 * it is gone; damaged ids are refused. */
static void
test_session_restored (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-state-XXXXXX", NULL);
  g_autofree char *ws = g_build_filename (dir, "abc", NULL);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_session_file_free);
  g_autoptr(GError) error = NULL;
  RkSession *session;
  RkSessionFile *f;

  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  g_ptr_array_add (files, rk_session_file_new ("sales.csv", "/home/user/sales.csv"));
  session = rk_session_new_restored (dir, "abc", files, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rk_session_get_state (session), ==, RK_SESSION_ACTIVE);
  g_assert_cmpstr (rk_workspace_get_path (rk_session_get_workspace (session)), ==, ws);
  g_assert_cmpuint (rk_session_get_files (session)->len, ==, 1);
  f = g_ptr_array_index (rk_session_get_files (session), 0);
  /* A copy of the record, not the caller's. */
  g_assert_true (f != g_ptr_array_index (files, 0));
  g_assert_cmpstr (f->name, ==, "sales.csv");
  g_assert_cmpstr (f->original_path, ==, "/home/user/sales.csv");
  g_assert_finalize_object (session);

  g_assert_cmpint (g_rmdir (ws), ==, 0);
  session = rk_session_new_restored (dir, "abc", files, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rk_session_get_state (session), ==, RK_SESSION_EXPIRED);
  g_assert_cmpint (rk_session_get_expiry_time (session), ==, 0);
  g_assert_finalize_object (session);

  g_assert_null (rk_session_new_restored (dir, "../etc", NULL, NULL, &error));
  g_assert_error (error, RK_SESSION_ERROR, RK_SESSION_ERROR_REIMPORT);
  g_clear_error (&error);
  g_assert_null (rk_session_new_restored (dir, "a/b", files, NULL, &error));
  g_assert_error (error, RK_SESSION_ERROR, RK_SESSION_ERROR_REIMPORT);

  rk_workspace_delete_folder (dir, NULL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/state/enum-types", test_enum_types);
  g_test_add_func ("/rk/state/kernel", test_kernel_state);
  g_test_add_func ("/rk/state/session", test_session_state);
  g_test_add_func ("/rk/state/session-restored", test_session_restored);

  return g_test_run ();
}
