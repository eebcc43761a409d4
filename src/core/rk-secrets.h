/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-secrets.h — API keys of model servers in the Secret Service (libsecret),
 * never in plain settings. One key per endpoint. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Schema "io.github.reckon.Reckon.ApiKey" with one string attribute, "endpoint". */
const void *rk_secrets_get_schema            (void);

void        rk_secrets_store_api_key_async   (const char          *endpoint,
                                              const char          *api_key,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
gboolean    rk_secrets_store_api_key_finish  (GAsyncResult        *result,
                                              GError             **error);

/* Finishes with NULL and no error when no key is stored. */
void        rk_secrets_lookup_api_key_async  (const char          *endpoint,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
char       *rk_secrets_lookup_api_key_finish (GAsyncResult        *result,
                                              GError             **error);

void        rk_secrets_clear_api_key_async   (const char          *endpoint,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
gboolean    rk_secrets_clear_api_key_finish  (GAsyncResult        *result,
                                              GError             **error);

/* The key of the server in @settings' "endpoint", once the keyring answers,
 * into @object's string @property. The keyring is asked only when
 * "api-key-endpoints" lists that address: a keyless local server brings no
 * keyring and no unlock prompt. Nothing is set when no key is stored. */
void        rk_secrets_load_api_key          (GSettings           *settings,
                                              GObject             *object,
                                              const char          *property,
                                              GCancellable        *cancellable);

G_END_DECLS
