/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-secrets.c — API keys round-trip through the Secret Service. */
#define G_LOG_DOMAIN "test-secrets"
#include "config.h"

#include "rk-secrets.h"

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static void
test_round_trip (void)
{
  const char *endpoint = "http://127.0.0.1:65000/test-secrets";
  g_autoptr(GAsyncResult) stored = NULL;
  g_autoptr(GAsyncResult) found = NULL;
  g_autoptr(GAsyncResult) cleared = NULL;
  g_autoptr(GAsyncResult) gone = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  g_autofree char *none = NULL;

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_test_skip ("no session bus, so no Secret Service");
      return;
    }
  rk_secrets_store_api_key_async (endpoint, "sk-test-123", NULL, done_cb, &stored);
  if (!rk_secrets_store_api_key_finish (wait_result (&stored), &error))
    {
      g_autofree char *why = g_strdup_printf ("no usable Secret Service: %s", error->message);
      g_test_skip (why);
      return;
    }
  rk_secrets_lookup_api_key_async (endpoint, NULL, done_cb, &found);
  key = rk_secrets_lookup_api_key_finish (wait_result (&found), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, "sk-test-123");

  rk_secrets_clear_api_key_async (endpoint, NULL, done_cb, &cleared);
  g_assert_true (rk_secrets_clear_api_key_finish (wait_result (&cleared), &error));
  g_assert_no_error (error);
  rk_secrets_lookup_api_key_async (endpoint, NULL, done_cb, &gone);
  none = rk_secrets_lookup_api_key_finish (wait_result (&gone), &error);
  g_assert_no_error (error);
  g_assert_null (none);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/secrets/round-trip", test_round_trip);
  return g_test_run ();
}
