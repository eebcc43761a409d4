/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-user-scope.c — a transient systemd user scope for one sandbox run, so
 * that a memory cgroup bounds the run's total memory on a v2 desktop. */
#define G_LOG_DOMAIN "rk-user-scope"
#include "config.h"
#include "rk-user-scope.h"

#include <unistd.h>

#define SYSTEMD_NAME      "org.freedesktop.systemd1"
#define SYSTEMD_PATH      "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER   "org.freedesktop.systemd1.Manager"

/* Set once connecting to the session bus outlasted a timeout: that attempt
 * may still be pending (a connection cannot be abandoned), and each later
 * one would wait on it, so later runs go on at once without a scope. */
static gint bus_hung;

gboolean
rk_user_scope_supported (GError **error)
{
  const char *address = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  g_autofree char *socket = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);

  if (!g_file_test ("/sys/fs/cgroup/cgroup.controllers", G_FILE_TEST_EXISTS))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "/sys/fs/cgroup is not cgroup v2 (no cgroup.controllers there)");
      return FALSE;
    }
  if (geteuid () == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "root has no user manager scope (reckon-sandbox makes its own cgroups)");
      return FALSE;
    }
  /* Never D-Bus autolaunch (dbus-launch, X11): only a bus that is there. */
  if ((address == NULL || address[0] == '\0') && !g_file_test (socket, G_FILE_TEST_EXISTS))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)");
      return FALSE;
    }
  return TRUE;
}

/* One request, run in its own main context. Reference-counted: a reply or
 * a bus that comes after the timeout still finds it. */
typedef struct
{
  GMainContext    *context;
  GCancellable    *call_cancel; /* ours: ends the pending request on a timeout */
  GDBusConnection *bus;
  gboolean         bus_done;
  gboolean         reply_done;
  char            *sender;      /* the unique name that answered StartTransientUnit */
  char            *job;         /* the job it returned */
  GHashTable      *removed;     /* JobRemoved seen before the answer: "sender job" -> result */
  char            *result;      /* our job's result */
  gboolean         have_result;
  GError          *error;
  gboolean         timed_out;
} Start;

static void
start_clear (Start *s)
{
  g_clear_object (&s->call_cancel);
  g_clear_object (&s->bus);
  g_hash_table_unref (s->removed);
  g_free (s->sender);
  g_free (s->job);
  g_free (s->result);
  g_clear_error (&s->error);
  g_main_context_unref (s->context);
}

static void
start_unref (Start *s)
{
  g_atomic_rc_box_release_full (s, (GDestroyNotify) start_clear);
}

static void
job_removed_cb (GDBusConnection *connection,
                const char      *sender,
                const char      *path,
                const char      *interface,
                const char      *signal,
                GVariant        *parameters,
                gpointer         user_data)
{
  Start *s = user_data;
  guint32 id;
  const char *job, *unit, *result;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(uoss)")) || sender == NULL)
    return;
  g_variant_get (parameters, "(u&o&s&s)", &id, &job, &unit, &result);
  if (s->job == NULL)
    g_hash_table_insert (s->removed, g_strdup_printf ("%s %s", sender, job), g_strdup (result));
  else if (s->result == NULL && g_strcmp0 (sender, s->sender) == 0 && g_strcmp0 (job, s->job) == 0)
    {
      s->result = g_strdup (result);
      s->have_result = TRUE;
    }
}

static void
bus_cb (GObject      *source,
        GAsyncResult *res,
        gpointer      user_data)
{
  Start *s = user_data;

  s->bus = g_bus_get_finish (res, s->error == NULL ? &s->error : NULL);
  s->bus_done = TRUE;
  start_unref (s);
}

static void
reply_cb (GObject      *source,
          GAsyncResult *res,
          gpointer      user_data)
{
  Start *s = user_data;
  g_autoptr(GDBusMessage) reply = NULL;
  GError *error = NULL;

  s->reply_done = TRUE;
  reply = g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source), res, &error);
  if (reply != NULL && g_dbus_message_to_gerror (reply, &error))
    g_clear_object (&reply);
  if (reply == NULL)
    {
      /* No user manager on this bus. */
      if (g_dbus_error_is_remote_error (error))
        {
          g_autofree char *name = g_dbus_error_get_remote_error (error);

          g_dbus_error_strip_remote_error (error);
          if (g_strcmp0 (name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
              g_strcmp0 (name, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0)
            {
              g_clear_error (&error);
              g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                   "no systemd user manager on the session bus");
            }
        }
      if (s->error == NULL)
        s->error = error;
      else
        g_error_free (error);
      start_unref (s);
      return;
    }
  if (!g_variant_is_of_type (g_dbus_message_get_body (reply), G_VARIANT_TYPE ("(o)")) ||
      g_dbus_message_get_sender (reply) == NULL)
    {
      if (s->error == NULL)
        s->error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                        "systemd's answer to StartTransientUnit is not a job");
      start_unref (s);
      return;
    }
  s->sender = g_strdup (g_dbus_message_get_sender (reply));
  g_variant_get (g_dbus_message_get_body (reply), "(o)", &s->job);
  /* The job may have ended before the answer was read. */
  {
    g_autofree char *key = g_strdup_printf ("%s %s", s->sender, s->job);
    const char *result = g_hash_table_lookup (s->removed, key);

    if (result != NULL)
      {
        s->result = g_strdup (result);
        s->have_result = TRUE;
      }
  }
  start_unref (s);
}

static gboolean
timeout_cb (gpointer user_data)
{
  Start *s = user_data;

  s->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
cancelled_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  return G_SOURCE_CONTINUE;
}

static GDBusMessage *
start_transient_unit (const char *unit,
                      GPid        pid,
                      guint64     memory_max,
                      guint64     tasks_max)
{
  GDBusMessage *message = g_dbus_message_new_method_call (SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                                          "StartTransientUnit");
  GVariantBuilder props;
  guint32 pids[1] = { (guint32) pid };

  g_variant_builder_init (&props, G_VARIANT_TYPE ("a(sv)"));
  g_variant_builder_add (&props, "(sv)", "PIDs",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, pids, 1, sizeof pids[0]));
  g_variant_builder_add (&props, "(sv)", "MemoryMax", g_variant_new_uint64 (memory_max));
  /* As cgroup v1's memsw: RAM and swap together within MemoryMax. */
  g_variant_builder_add (&props, "(sv)", "MemorySwapMax", g_variant_new_uint64 (0));
  g_variant_builder_add (&props, "(sv)", "TasksMax", g_variant_new_uint64 (tasks_max));
  g_variant_builder_add (&props, "(sv)", "Description", g_variant_new_string ("Reckon sandbox run"));
  g_variant_builder_add (&props, "(sv)", "CollectMode", g_variant_new_string ("inactive-or-failed"));
  g_dbus_message_set_body (message, g_variant_new ("(ssa(sv)a(sa(sv)))", unit, "fail", &props, NULL));
  /* Never start a user manager just for this. */
  g_dbus_message_set_flags (message, G_DBUS_MESSAGE_FLAGS_NO_AUTO_START);
  return message;
}

/* Runs @s->context until @done is set, an error comes, or the timeout or
 * @cancellable fires. */
static gboolean
wait_for (Start        *s,
          gboolean     *done,
          GCancellable *cancellable)
{
  while (!*done && s->error == NULL && !s->timed_out && !g_cancellable_is_cancelled (cancellable))
    g_main_context_iteration (s->context, TRUE);
  return *done && s->error == NULL;
}

char *
rk_user_scope_start_sync (GPid           pid,
                          guint64        memory_max,
                          guint64        tasks_max,
                          GCancellable  *cancellable,
                          GError       **error)
{
  static gint serial;
  g_autoptr(GDBusMessage) message = NULL;
  g_autoptr(GSource) timeout = NULL;
  g_autoptr(GSource) cancel = NULL;
  g_autofree char *unit = NULL;
  Start *s;
  guint subscription = 0;
  gboolean got_result = FALSE;
  gboolean bus_timed_out = FALSE;
  gint64 started = g_get_monotonic_time ();
  GError *failure = NULL;

  g_return_val_if_fail (pid > 0, NULL);

  if (!rk_user_scope_supported (error))
    return NULL;
  if (g_atomic_int_get (&bus_hung))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           "the session bus did not answer a connection earlier in this process");
      return NULL;
    }

  s = g_atomic_rc_box_new0 (Start);
  s->context = g_main_context_new ();
  s->call_cancel = g_cancellable_new ();
  s->removed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_main_context_push_thread_default (s->context);
  timeout = g_timeout_source_new (RK_USER_SCOPE_TIMEOUT_MS);
  g_source_set_callback (timeout, timeout_cb, s, NULL);
  g_source_attach (timeout, s->context);
  if (cancellable != NULL)
    {
      cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (cancel, G_SOURCE_FUNC (cancelled_cb), NULL, NULL);
      g_source_attach (cancel, s->context);
    }

  /* Connecting (if the app has not yet) counts against the timeout too: a
   * hung bus never stalls the run. */
  g_bus_get (G_BUS_TYPE_SESSION, s->call_cancel, bus_cb, g_atomic_rc_box_acquire (s));
  if (!wait_for (s, &s->bus_done, cancellable) && !s->bus_done && s->timed_out)
    {
      bus_timed_out = TRUE;
      g_atomic_int_set (&bus_hung, 1);
    }
  else if (s->bus != NULL)
    {
      /* Subscribed before the request, so that the job's end is never
       * missed; delivered in s->context, which only this thread runs. */
      subscription = g_dbus_connection_signal_subscribe (s->bus, NULL, SYSTEMD_MANAGER, "JobRemoved",
                                                         SYSTEMD_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                         job_removed_cb, s, NULL);
      unit = g_strdup_printf ("app-reckon-sandbox-%d-%d.scope", (int) pid, g_atomic_int_add (&serial, 1));
      message = start_transient_unit (unit, pid, memory_max, tasks_max);
      g_dbus_connection_send_message_with_reply (s->bus, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                                 RK_USER_SCOPE_TIMEOUT_MS, NULL, s->call_cancel, reply_cb,
                                                 g_atomic_rc_box_acquire (s));
      if (wait_for (s, &s->reply_done, cancellable))
        got_result = wait_for (s, &s->have_result, cancellable);
    }
  if (got_result && g_strcmp0 (s->result, "done") != 0)
    failure = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, "the scope's job ended as \"%s\"", s->result);
  else if (!got_result && s->error != NULL)
    failure = g_error_copy (s->error);
  else if (!got_result && g_cancellable_is_cancelled (cancellable))
    failure = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
  else if (bus_timed_out)
    failure = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "the session bus did not answer within %d ms",
                           RK_USER_SCOPE_TIMEOUT_MS);
  else if (!got_result)
    failure = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "systemd did not start the scope within %d ms",
                           RK_USER_SCOPE_TIMEOUT_MS);

  /* Whatever is still pending ends now: a request's cancellation is
   * delivered at once (the drain below); connecting to a hung bus is not,
   * and its callback, which never runs, keeps its own reference. */
  g_source_destroy (timeout);
  if (cancel != NULL)
    g_source_destroy (cancel);
  if (subscription != 0)
    g_dbus_connection_signal_unsubscribe (s->bus, subscription);
  g_cancellable_cancel (s->call_cancel);
  while (g_main_context_iteration (s->context, FALSE))
    ;
  g_main_context_pop_thread_default (s->context);

  g_debug ("scope %s for pid %d: %s (%.1f ms)", unit ? unit : "(none)", (int) pid,
           failure ? failure->message : "done", (g_get_monotonic_time () - started) / 1000.0);
  start_unref (s);
  if (failure != NULL)
    {
      g_propagate_error (error, failure);
      return NULL;
    }
  return g_steal_pointer (&unit);
}
