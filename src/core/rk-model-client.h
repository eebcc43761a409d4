/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-model-client.h — streaming chat with a local model server, OpenAI-
 * compatible (SSE) or Ollama (NDJSON); model lists; endpoint and API probing. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "rk-chat-stream.h"
#include "rk-model-replies.h"

G_BEGIN_DECLS

#define RK_MODEL_ERROR (rk_model_error_quark ())

/* Every error's message is one sentence that names the endpoint. */
typedef enum
{
  RK_MODEL_ERROR_UNREACHABLE,    /* nothing answers at the address */
  RK_MODEL_ERROR_MODEL_MISSING,  /* the model is not on the server (the message lists those that are) */
  RK_MODEL_ERROR_HTTP,           /* an HTTP error status, with the server's own message if any */
  RK_MODEL_ERROR_PROTOCOL,       /* a malformed reply, a stream cut mid-way, not a model server */
  RK_MODEL_ERROR_STALLED,        /* nothing arrived for idle-timeout seconds */
  RK_MODEL_ERROR_CANCELLED,      /* the caller cancelled */
  RK_MODEL_ERROR_REMOTE_REFUSED, /* the endpoint is not on this machine and allow-remote is off */
  RK_MODEL_ERROR_LOADING,        /* the server is still loading the model (HTTP 503) */
  RK_MODEL_ERROR_SERVER,         /* the server reported an error inside a 200 stream */
} RkModelError;

#define RK_TYPE_MODEL_CLIENT (rk_model_client_get_type ())
G_DECLARE_FINAL_TYPE (RkModelClient, rk_model_client, RK, MODEL_CLIENT, GObject)

GQuark         rk_model_error_quark               (void);

RkModelClient *rk_model_client_new                (void);

/* Base URL such as http://127.0.0.1:11434 (a trailing /v1 is accepted).
 * NULL or "": try the candidate endpoints in order. */
void           rk_model_client_set_endpoint       (RkModelClient *self, const char *endpoint);
const char    *rk_model_client_get_endpoint       (RkModelClient *self);
/* NULL or "": the first model the server lists. */
void           rk_model_client_set_model          (RkModelClient *self, const char *model);
const char    *rk_model_client_get_model          (RkModelClient *self);
void           rk_model_client_set_api            (RkModelClient *self, RkModelApi api);
RkModelApi     rk_model_client_get_api            (RkModelClient *self);
/* Sent as "Authorization: Bearer KEY"; see rk-secrets.h for storage. */
void           rk_model_client_set_api_key        (RkModelClient *self, const char *api_key);
void           rk_model_client_set_allow_remote   (RkModelClient *self, gboolean allow);
gboolean       rk_model_client_get_allow_remote   (RkModelClient *self);
/* Seconds without a byte before a request fails as STALLED (default 60). */
void           rk_model_client_set_idle_timeout   (RkModelClient *self, guint seconds);
/* Seconds to wait for the response to begin (prompt processing), default 300. */
void           rk_model_client_set_response_timeout (RkModelClient *self, guint seconds);
/* Endpoints tried when none is set; default 127.0.0.1:11434, :8080, :1234. */
void           rk_model_client_set_candidates     (RkModelClient *self, const char * const *urls);

/* After a successful resolve (done implicitly by the calls below). */
const char    *rk_model_client_get_resolved_endpoint (RkModelClient *self);
RkModelApi     rk_model_client_get_resolved_api   (RkModelClient *self);

/* Finds the endpoint (when none is set) and the API (when auto):
 * GET /api/tags answers with a model list → Ollama; else GET /v1/models → OpenAI. */
void           rk_model_client_resolve_async      (RkModelClient       *self,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
gboolean       rk_model_client_resolve_finish     (RkModelClient       *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

/* Lists models; with @capabilities asks Ollama's /api/show for each. */
void           rk_model_client_list_models_async  (RkModelClient       *self,
                                                   gboolean             capabilities,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
/* Returns: (transfer container) an array of RkModelInfo. */
GPtrArray     *rk_model_client_list_models_finish (RkModelClient       *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

/* Reaches the server and, when a model is set, checks that the server
 * lists it (Ollama's "name" and "name:latest" alike): a server that answers
 * under any name is not trusted to have it. Fails with
 * RK_MODEL_ERROR_MODEL_MISSING naming the models there are. */
void           rk_model_client_check_model_async  (RkModelClient       *self,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
gboolean       rk_model_client_check_model_finish (RkModelClient       *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

/* The server's own name for its version ("Ollama 0.5.7", "llama.cpp
 * b4500-…", or vLLM's bare "0.6.3"), asked where each kind reports it.
 * Finishes with NULL and no error when the server does not say. */
void           rk_model_client_get_server_version_async  (RkModelClient       *self,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
char          *rk_model_client_get_server_version_finish (RkModelClient       *self,
                                                          GAsyncResult        *result,
                                                          GError             **error);

/* Streams one chat completion. @messages: a JSON array of OpenAI-style
 * messages ({role, content}, assistant {tool_calls: [{id, type, function:
 * {name, arguments: "JSON text"}}]}, {role: "tool", tool_call_id, content});
 * they are translated for Ollama. @tools: OpenAI-style tool list or NULL.
 * @options: e.g. temperature, max_tokens, seed, num_ctx; or NULL.
 * @delta_func is called on the caller's main context as pieces arrive. */
void           rk_model_client_chat_async         (RkModelClient       *self,
                                                   JsonNode            *messages,
                                                   JsonNode            *tools,
                                                   JsonObject          *options,
                                                   RkChatDeltaFunc      delta_func,
                                                   gpointer             delta_data,
                                                   GDestroyNotify       delta_destroy,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
RkChatReply   *rk_model_client_chat_finish        (RkModelClient       *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

/* TRUE if @url names this machine (localhost, 127.0.0.0/8, ::1). */
gboolean       rk_model_endpoint_is_local         (const char          *url);

G_END_DECLS
