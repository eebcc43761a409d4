/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-secrets.c — API keys in the Secret Service through libsecret, which is
 * loaded the first time a key is stored, read or cleared: most people run a
 * local server without a key, and linking libsecret (with libgcrypt) cost
 * every start some 0.5 MiB of resident memory (docs/architecture.md). */
#define G_LOG_DOMAIN "rk-secrets"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <gmodule.h>
#include <libsecret/secret.h>

#include "rk-secrets.h"

#define LIBSECRET_SONAME "libsecret-1.so.0"

static const SecretSchema schema = {
  "io.github.reckon.Reckon.ApiKey", SECRET_SCHEMA_NONE,
  {
    { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  }
};

/* The functions we call, typed by libsecret's own declarations. */
typedef struct
{
  __typeof__ (secret_password_store)         *store;
  __typeof__ (secret_password_store_finish)  *store_finish;
  __typeof__ (secret_password_lookup)        *lookup;
  __typeof__ (secret_password_lookup_finish) *lookup_finish;
  __typeof__ (secret_password_clear)         *clear;
  __typeof__ (secret_password_clear_finish)  *clear_finish;
  __typeof__ (secret_password_free)          *free;
} Libsecret;

static Libsecret lib;
static char *load_error;

static gpointer
load_once (gpointer data)
{
  GModule *module = g_module_open (LIBSECRET_SONAME, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  static const struct { const char *name; gsize offset; } symbols[] = {
    { "secret_password_store", G_STRUCT_OFFSET (Libsecret, store) },
    { "secret_password_store_finish", G_STRUCT_OFFSET (Libsecret, store_finish) },
    { "secret_password_lookup", G_STRUCT_OFFSET (Libsecret, lookup) },
    { "secret_password_lookup_finish", G_STRUCT_OFFSET (Libsecret, lookup_finish) },
    { "secret_password_clear", G_STRUCT_OFFSET (Libsecret, clear) },
    { "secret_password_clear_finish", G_STRUCT_OFFSET (Libsecret, clear_finish) },
    { "secret_password_free", G_STRUCT_OFFSET (Libsecret, free) },
  };
  Libsecret found = { 0, };

  if (module == NULL)
    {
      g_debug ("%s", g_module_error ());
      load_error = g_strdup (_("The keyring cannot be used because libsecret is not installed."));
      return NULL;
    }
  for (guint i = 0; i < G_N_ELEMENTS (symbols); i++)
    {
      gpointer fn = NULL;

      if (!g_module_symbol (module, symbols[i].name, &fn) || fn == NULL)
        {
          g_debug ("%s", g_module_error ());
          load_error = g_strdup (_("The keyring cannot be used because the installed libsecret is too old."));
          g_module_close (module);
          return NULL;
        }
      G_STRUCT_MEMBER (gpointer, &found, symbols[i].offset) = fn;
    }
  /* Stays loaded: libsecret's types and D-Bus proxies live on. */
  g_module_make_resident (module);
  lib = found;
  return &lib;
}

/* The loaded library; without it, NULL, and the call (@source_tag) still
 * completes, with the error, as a task of ours. */
static const Libsecret *
libsecret_or_report (gpointer             source_tag,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  static GOnce once = G_ONCE_INIT;
  const Libsecret *loaded = g_once (&once, load_once, NULL);

  if (loaded == NULL)
    g_task_report_new_error (NULL, callback, user_data, source_tag,
                             G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s", load_error);
  return loaded;
}

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
  const Libsecret *s;
  g_autofree char *label = NULL;

  g_return_if_fail (endpoint != NULL);
  g_return_if_fail (api_key != NULL);

  s = libsecret_or_report (rk_secrets_store_api_key_async, callback, user_data);
  if (s == NULL)
    return;
  label = g_strdup_printf (_("Reckon API key for %s"), endpoint);
  s->store (&schema, SECRET_COLLECTION_DEFAULT, label, api_key,
            cancellable, callback, user_data,
            "endpoint", endpoint, NULL);
}

gboolean
rk_secrets_store_api_key_finish (GAsyncResult *result,
                                 GError      **error)
{
  if (g_async_result_is_tagged (result, rk_secrets_store_api_key_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  return lib.store_finish (result, error);
}

void
rk_secrets_lookup_api_key_async (const char          *endpoint,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  const Libsecret *s;

  g_return_if_fail (endpoint != NULL);

  s = libsecret_or_report (rk_secrets_lookup_api_key_async, callback, user_data);
  if (s == NULL)
    return;
  s->lookup (&schema, cancellable, callback, user_data, "endpoint", endpoint, NULL);
}

char *
rk_secrets_lookup_api_key_finish (GAsyncResult *result,
                                  GError      **error)
{
  char *secret;
  char *copy;

  if (g_async_result_is_tagged (result, rk_secrets_lookup_api_key_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  secret = lib.lookup_finish (result, error);
  if (secret == NULL)
    return NULL;
  /* Hand out ordinary memory; wipe libsecret's copy. */
  copy = g_strdup (secret);
  lib.free (secret);
  return copy;
}

void
rk_secrets_clear_api_key_async (const char          *endpoint,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  const Libsecret *s;

  g_return_if_fail (endpoint != NULL);

  s = libsecret_or_report (rk_secrets_clear_api_key_async, callback, user_data);
  if (s == NULL)
    return;
  s->clear (&schema, cancellable, callback, user_data, "endpoint", endpoint, NULL);
}

gboolean
rk_secrets_clear_api_key_finish (GAsyncResult *result,
                                 GError      **error)
{
  g_autoptr(GError) local = NULL;

  if (g_async_result_is_tagged (result, rk_secrets_clear_api_key_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  /* Clearing a key that is not there is not an error. */
  if (!lib.clear_finish (result, &local) && local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  GObject    *object;
  const char *property;   /* interned */
} KeyTarget;

static void
api_key_loaded_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autofree KeyTarget *target = user_data;
  g_autoptr(GObject) object = target->object;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = rk_secrets_lookup_api_key_finish (result, &error);

  if (key != NULL)
    g_object_set (object, target->property, key, NULL);
  else if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("No API key: %s", error->message);
}

void
rk_secrets_load_api_key (GSettings    *settings,
                         GObject      *object,
                         const char   *property,
                         GCancellable *cancellable)
{
  g_autofree char *endpoint = NULL;
  g_auto(GStrv) with_key = NULL;
  KeyTarget *target;

  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (G_IS_OBJECT (object));
  g_return_if_fail (property != NULL);

  endpoint = g_settings_get_string (settings, "endpoint");
  with_key = g_settings_get_strv (settings, "api-key-endpoints");
  if (*endpoint == '\0' || !g_strv_contains ((const char * const *) with_key, endpoint))
    return;
  target = g_new (KeyTarget, 1);
  target->object = g_object_ref (object);
  target->property = g_intern_string (property);
  rk_secrets_lookup_api_key_async (endpoint, cancellable, api_key_loaded_cb, target);
}
