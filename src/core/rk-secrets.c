/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "rk-secrets"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <libsecret/secret.h>

#include "rk-secrets.h"

static const SecretSchema schema = {
  "io.github.reckon.Reckon.ApiKey", SECRET_SCHEMA_NONE,
  {
    { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  }
};

const void *
rk_secrets_get_schema (void)
{
  return &schema;
}

void
rk_secrets_store_api_key_async (const char          *endpoint,
                                const char          *api_key,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autofree char *label = NULL;

  g_return_if_fail (endpoint != NULL);
  g_return_if_fail (api_key != NULL);

  label = g_strdup_printf (_("Reckon API key for %s"), endpoint);
  secret_password_store (&schema, SECRET_COLLECTION_DEFAULT, label, api_key,
                         cancellable, callback, user_data,
                         "endpoint", endpoint, NULL);
}

gboolean
rk_secrets_store_api_key_finish (GAsyncResult *result,
                                 GError      **error)
{
  return secret_password_store_finish (result, error);
}

void
rk_secrets_lookup_api_key_async (const char          *endpoint,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (endpoint != NULL);
  secret_password_lookup (&schema, cancellable, callback, user_data, "endpoint", endpoint, NULL);
}

char *
rk_secrets_lookup_api_key_finish (GAsyncResult *result,
                                  GError      **error)
{
  char *secret = secret_password_lookup_finish (result, error);
  char *copy;

  if (secret == NULL)
    return NULL;
  /* Hand out ordinary memory; wipe libsecret's copy. */
  copy = g_strdup (secret);
  secret_password_free (secret);
  return copy;
}

void
rk_secrets_clear_api_key_async (const char          *endpoint,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (endpoint != NULL);
  secret_password_clear (&schema, cancellable, callback, user_data, "endpoint", endpoint, NULL);
}

gboolean
rk_secrets_clear_api_key_finish (GAsyncResult *result,
                                 GError      **error)
{
  g_autoptr(GError) local = NULL;

  /* Clearing a key that is not there is not an error. */
  if (!secret_password_clear_finish (result, &local) && local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}
