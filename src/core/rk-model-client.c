/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-model-client.c — one client for both wire formats. Every request runs
 * through http_op: a libsoup request with an idle timer, a size limit, and
 * errors turned into one sentence naming the endpoint. */
#define G_LOG_DOMAIN "rk-model-client"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>
#include <string.h>

#include "rk-model-client.h"
#include "rk-json.h"
#include "rk-model-replies.h"
#include "rk-util.h"

#define MAX_BODY        (4u * 1024 * 1024)   /* model lists and other small replies */
#define MAX_ERROR_BODY  (64u * 1024)
#define READ_SIZE       16384

struct _RkModelClient
{
  GObject      parent_instance;
  SoupSession *session;
  char        *endpoint;
  char        *model;
  RkModelApi   api;
  char        *api_key;
  gboolean     allow_remote;
  guint        idle_timeout;
  guint        response_timeout;
  GStrv        candidates;
  char        *resolved_endpoint;
  RkModelApi   resolved_api;
};

G_DEFINE_FINAL_TYPE (RkModelClient, rk_model_client, G_TYPE_OBJECT)
G_DEFINE_QUARK (rk-model-error-quark, rk_model_error)
G_DEFINE_ENUM_TYPE (RkModelApi, rk_model_api,
  G_DEFINE_ENUM_VALUE (RK_MODEL_API_AUTO, "auto"),
  G_DEFINE_ENUM_VALUE (RK_MODEL_API_OPENAI, "openai"),
  G_DEFINE_ENUM_VALUE (RK_MODEL_API_OLLAMA, "ollama"))

enum
{
  PROP_0,
  PROP_ENDPOINT,
  PROP_MODEL,
  PROP_API,
  PROP_API_KEY,
  PROP_ALLOW_REMOTE,
  PROP_IDLE_TIMEOUT,
  PROP_RESPONSE_TIMEOUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const default_candidates[] = {
  "http://127.0.0.1:11434", "http://127.0.0.1:8080", "http://127.0.0.1:1234", NULL
};

/* ---------------------------------------------------------------- endpoints */

static GUri *
parse_endpoint (const char *url)
{
  g_autofree char *with_scheme = NULL;
  GUri *uri;

  if (url == NULL)
    return NULL;
  if (strstr (url, "://") == NULL)
    url = with_scheme = g_strconcat ("http://", url, NULL);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL)
    return NULL;
  if ((g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 &&
       g_strcmp0 (g_uri_get_scheme (uri), "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0' ||
      g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL ||
      g_uri_get_userinfo (uri) != NULL)
    {
      g_uri_unref (uri);
      return NULL;
    }
  return uri;
}

/* "http://host:port[/prefix]" without a trailing slash or /v1. */
static char *
normalize_endpoint (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GUri) clean = NULL;
  g_autofree char *path = NULL;
  gsize len;

  g_autofree char *trimmed = g_strstrip (g_strdup (url ? url : ""));
  if ((uri = parse_endpoint (trimmed)) == NULL)
    return NULL;
  path = g_strdup (g_uri_get_path (uri));
  len = strlen (path);
  while (len > 0 && path[len - 1] == '/')
    path[--len] = '\0';
  if (len >= 3 && strcmp (path + len - 3, "/v1") == 0)
    path[len -= 3] = '\0';
  while (len > 0 && path[len - 1] == '/')
    path[--len] = '\0';
  clean = g_uri_build (G_URI_FLAGS_NONE, g_uri_get_scheme (uri), NULL,
                       g_uri_get_host (uri), g_uri_get_port (uri), path, NULL, NULL);
  return g_uri_to_string (clean);
}

gboolean
rk_model_endpoint_is_local (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GInetAddress) address = NULL;
  const char *host;

  if ((uri = parse_endpoint (url)) == NULL)
    return FALSE;
  host = g_uri_get_host (uri);
  if (g_ascii_strcasecmp (host, "localhost") == 0 || g_ascii_strcasecmp (host, "localhost.") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

/* A hint of what to start, from the port. */
static const char *
server_hint (const char *endpoint,
             RkModelApi  api)
{
  g_autoptr(GUri) uri = parse_endpoint (endpoint);
  int port = uri ? g_uri_get_port (uri) : -1;

  if (api == RK_MODEL_API_OLLAMA || port == 11434)
    return _("Is Ollama running?");
  if (port == 8080)
    return _("Is llama-server running?");
  if (port == 1234)
    return _("Is LM Studio's server running?");
  return _("Is the model server running?");
}

/* ---------------------------------------------------------------- http_op */

typedef struct
{
  guint   status;
  GBytes *body;
} HttpResult;

static void
http_result_free (HttpResult *result)
{
  g_clear_pointer (&result->body, g_bytes_unref);
  g_free (result);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HttpResult, http_result_free)

typedef struct
{
  char          *endpoint;
  RkModelApi     api;          /* for the hint in messages */
  SoupMessage   *msg;
  GCancellable  *internal;
  GCancellable  *user;
  gulong         user_handler;
  GSource       *timer;
  gint64         deadline;     /* monotonic µs */
  guint          idle_ms;
  guint          response_ms;
  gboolean       stalled;
  gboolean       streaming;    /* the body goes to @chat */
  GInputStream  *stream;
  GByteArray    *body;
  gsize          limit;
  RkChatStream  *chat;         /* not owned */
  guint8         buf[READ_SIZE];
} HttpOp;

static void
http_op_free (HttpOp *op)
{
  if (op->timer != NULL)
    {
      g_source_destroy (op->timer);
      g_source_unref (op->timer);
    }
  if (op->user != NULL)
    g_cancellable_disconnect (op->user, op->user_handler);
  g_clear_object (&op->user);
  g_clear_object (&op->internal);
  g_clear_object (&op->stream);
  g_clear_object (&op->msg);
  g_clear_pointer (&op->body, g_byte_array_unref);
  g_free (op->endpoint);
  g_free (op);
}

/* One timer per request whose deadline moves with each read: pushing a
 * deadline forward costs a clock read, not a new GSource per chunk. */
static gboolean
deadline_dispatch (GSource    *source,
                   GSourceFunc callback,
                   gpointer    data)
{
  return callback (data);
}

static GSourceFuncs deadline_funcs = { NULL, NULL, deadline_dispatch, NULL, NULL, NULL };

static gboolean
timer_cb (gpointer data)
{
  HttpOp *op = data;

  if (g_get_monotonic_time () < op->deadline)
    {
      g_source_set_ready_time (op->timer, op->deadline);
      return G_SOURCE_CONTINUE;
    }
  op->stalled = TRUE;
  g_cancellable_cancel (op->internal);
  g_source_unref (op->timer);
  op->timer = NULL;
  return G_SOURCE_REMOVE;
}

static void
arm_timer (HttpOp *op,
           guint   ms)
{
  op->deadline = g_get_monotonic_time () + (gint64) ms * 1000;
  if (op->timer == NULL)
    {
      op->timer = g_source_new (&deadline_funcs, sizeof (GSource));
      g_source_set_callback (op->timer, timer_cb, op, NULL);
      g_source_set_ready_time (op->timer, op->deadline);
      g_source_attach (op->timer, g_main_context_get_thread_default ());
    }
  else if (op->deadline < g_source_get_ready_time (op->timer))
    g_source_set_ready_time (op->timer, op->deadline);
}

static void
user_cancelled_cb (GCancellable *cancellable,
                   gpointer      data)
{
  GCancellable *internal = data;

  g_cancellable_cancel (internal);
}

/* Returns a new error for a failure of the transport, in the words the user sees. */
static GError *
transport_error (HttpOp       *op,
                 const GError *error,
                 gboolean      in_body)
{
  if (op->user != NULL && g_cancellable_is_cancelled (op->user))
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_CANCELLED,
                        _("The request to the model server at %s was cancelled."), op->endpoint);
  if (op->stalled)
    {
      guint seconds = (in_body ? op->idle_ms : op->response_ms) / 1000;
      return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_STALLED,
                          in_body ? g_dngettext (GETTEXT_PACKAGE, "The model server at %s stopped sending for %u second.",
                                                 "The model server at %s stopped sending for %u seconds.", seconds)
                                  : g_dngettext (GETTEXT_PACKAGE, "The model server at %s did not answer within %u second.",
                                                 "The model server at %s did not answer within %u seconds.", seconds),
                          op->endpoint, seconds);
    }
  if (!in_body &&
      (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND) ||
       error->domain == G_RESOLVER_ERROR))
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE,
                        _("No model server answers at %s. %s"),
                        op->endpoint, server_hint (op->endpoint, op->api));
  if (!in_body)
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                        _("The model server at %s closed the connection without answering (%s)."),
                        op->endpoint, error->message);
  return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                      _("The connection to the model server at %s was cut before the answer was complete."),
                      op->endpoint);
}

static void read_cb (GObject *source, GAsyncResult *result, gpointer data);

static void
read_more (GTask *task)
{
  HttpOp *op = g_task_get_task_data (task);

  g_input_stream_read_async (op->stream, op->buf, sizeof op->buf, G_PRIORITY_DEFAULT,
                             op->internal, read_cb, task);
}

static void
close_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  g_input_stream_close_finish (G_INPUT_STREAM (source), result, NULL);
}

static void
http_op_return (GTask *task)
{
  HttpOp *op = g_task_get_task_data (task);
  HttpResult *result = g_new0 (HttpResult, 1);

  if (op->timer != NULL)
    {
      g_source_destroy (op->timer);
      g_clear_pointer (&op->timer, g_source_unref);
    }
  /* Do not wait for the server to close: the answer is complete. */
  if (op->stream != NULL && !g_input_stream_is_closed (op->stream))
    g_input_stream_close_async (op->stream, G_PRIORITY_DEFAULT, NULL, close_cb, NULL);
  result->status = soup_message_get_status (op->msg);
  if (op->body != NULL)
    result->body = g_byte_array_free_to_bytes (g_steal_pointer (&op->body));
  g_task_return_pointer (task, result, (GDestroyNotify) http_result_free);
  g_object_unref (task);
}

static void
read_cb (GObject      *source,
         GAsyncResult *res,
         gpointer      data)
{
  GTask *task = data;
  HttpOp *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), res, &error);

  if (n < 0)
    {
      g_task_return_error (task, transport_error (op, error, TRUE));
      g_object_unref (task);
      return;
    }
  arm_timer (op, op->idle_ms);

  if (op->streaming)
    {
      if (n > 0)
        {
          if (!rk_chat_stream_feed (op->chat, (const char *) op->buf, n, &error))
            {
              g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                                       _("The model server at %s sent a malformed reply (%s)."),
                                       op->endpoint, error->message);
              g_object_unref (task);
              return;
            }
          if (rk_chat_stream_is_done (op->chat))
            {
              http_op_return (task);
              return;
            }
        }
      else
        {
          if (!rk_chat_stream_finish (op->chat, &error))
            {
              if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
                g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                                         _("The connection to the model server at %s was cut before the answer was complete."),
                                         op->endpoint);
              else
                g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                                         _("The model server at %s sent a malformed reply (%s)."),
                                         op->endpoint, error->message);
              g_object_unref (task);
              return;
            }
          http_op_return (task);
          return;
        }
    }
  else
    {
      if (n == 0)
        {
          http_op_return (task);
          return;
        }
      if (op->body->len + (gsize) n > op->limit)
        {
          if (soup_message_get_status (op->msg) != SOUP_STATUS_OK)
            {
              /* An error page: its beginning is enough. */
              g_byte_array_append (op->body, op->buf, op->limit - op->body->len);
              http_op_return (task);
              return;
            }
          g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                                   _("The model server at %s sent a reply larger than %lu bytes."),
                                   op->endpoint, (unsigned long) op->limit);
          g_object_unref (task);
          return;
        }
      g_byte_array_append (op->body, op->buf, n);
    }
  read_more (task);
}

static void
send_cb (GObject      *source,
         GAsyncResult *res,
         gpointer      data)
{
  GTask *task = data;
  HttpOp *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  op->stream = soup_session_send_finish (SOUP_SESSION (source), res, &error);
  if (op->stream == NULL)
    {
      g_task_return_error (task, transport_error (op, error, FALSE));
      g_object_unref (task);
      return;
    }
  arm_timer (op, op->idle_ms);
  if (soup_message_get_status (op->msg) != SOUP_STATUS_OK)
    {
      op->streaming = FALSE;
      op->limit = MAX_ERROR_BODY;
    }
  if (!op->streaming)
    op->body = g_byte_array_new ();
  read_more (task);
}

/* Runs one request; the result is an HttpResult (any status). With @chat
 * and a 200 answer, the body is streamed into @chat instead of kept. */
static void
http_op_start (RkModelClient       *self,
               const char          *endpoint,
               RkModelApi           api,
               const char          *method,
               const char          *path,
               const char          *json_body,
               RkChatStream        *chat,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  HttpOp *op = g_new0 (HttpOp, 1);
  g_autofree char *url = g_strconcat (endpoint, path, NULL);
  SoupMessageHeaders *headers;

  g_task_set_source_tag (task, http_op_start);
  g_task_set_task_data (task, op, (GDestroyNotify) http_op_free);
  /* Errors are ours to report; a cancelled task must still reach read_cb's words. */
  g_task_set_check_cancellable (task, FALSE);
  op->endpoint = g_strdup (endpoint);
  op->api = api;
  op->chat = chat;
  op->streaming = chat != NULL;
  op->limit = MAX_BODY;
  op->idle_ms = MAX (self->idle_timeout, 1) * 1000;
  op->response_ms = MAX (MAX (self->response_timeout, self->idle_timeout), 1) * 1000;
  op->internal = g_cancellable_new ();
  if (cancellable != NULL)
    {
      op->user = g_object_ref (cancellable);
      op->user_handler = g_cancellable_connect (cancellable, G_CALLBACK (user_cancelled_cb),
                                                op->internal, NULL);
    }

  op->msg = soup_message_new (method, url);
  if (op->msg == NULL)
    {
      g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE,
                               _("“%s” is not a valid model server address."), endpoint);
      g_object_unref (task);
      return;
    }
  headers = soup_message_get_request_headers (op->msg);
  if (self->api_key != NULL && self->api_key[0] != '\0')
    {
      g_autofree char *auth = g_strconcat ("Bearer ", self->api_key, NULL);
      soup_message_headers_replace (headers, "Authorization", auth);
    }
  if (json_body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (json_body, strlen (json_body));
      soup_message_set_request_body_from_bytes (op->msg, "application/json", bytes);
    }
  arm_timer (op, op->response_ms);
  soup_session_send_async (self->session, op->msg, G_PRIORITY_DEFAULT, op->internal, send_cb, task);
}

static HttpResult *
http_op_finish (GAsyncResult *result,
                GError      **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The HTTP result of @res for the call @task; NULL when the request
 * failed, and then @task has returned the error and is released. */
static HttpResult *
http_op_finish_or_fail (GAsyncResult *res,
                        GTask        *task)
{
  GError *error = NULL;
  HttpResult *result = http_op_finish (res, &error);

  if (result == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
    }
  return result;
}

/* The server's own words from an error body: {"error": "..."},
 * {"error": {"message": "..."}}, {"message": "..."}, {"detail": "..."} or text. */
static char *
server_message (GBytes *body)
{
  gsize len = 0;
  const char *data = body ? g_bytes_get_data (body, &len) : NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) root = NULL;
  char *nl;

  if (data == NULL || len == 0)
    return NULL;
  root = rk_json_parse_object (data, (gssize) len, MAX_ERROR_BODY, RK_CHAT_MAX_JSON_DEPTH,
                               RK_JSON_SCAN_DEFAULT, NULL);
  if (root != NULL)
    {
      JsonObject *obj = root;
      JsonNode *node = json_object_get_member (obj, "error");
      const char *keys[] = { "message", "detail" };

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        {
          obj = json_node_get_object (node);
          node = NULL;
        }
      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        return g_utf8_make_valid (json_node_get_string (node), MIN (strlen (json_node_get_string (node)), 500));
      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        {
          node = json_object_get_member (obj, keys[i]);
          if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
            return g_utf8_make_valid (json_node_get_string (node), MIN (strlen (json_node_get_string (node)), 500));
        }
      return NULL;
    }
  text = g_utf8_make_valid (data, MIN (len, 500));
  if ((nl = strpbrk (text, "\r\n")) != NULL)
    *nl = '\0';
  g_strstrip (text);
  if (text[0] == '\0' || text[0] == '<')  /* nothing, or an HTML page */
    return NULL;
  return g_steal_pointer (&text);
}

static GError *
http_status_error (const char *endpoint,
                   guint       status,
                   GBytes     *body)
{
  g_autofree char *message = server_message (body);
  const char *reason = soup_status_get_phrase (status);

  if (status == SOUP_STATUS_SERVICE_UNAVAILABLE)
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_LOADING,
                        _("The model server at %s is still loading the model; try again in a moment."),
                        endpoint);
  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP,
                        _("The model server at %s refused the request (HTTP %u%s%s); check the API key in Preferences."),
                        endpoint, status, message ? ": " : "", message ? message : "");
  if (message != NULL)
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP,
                        _("The model server at %s failed with HTTP %u: %s"),
                        endpoint, status, message);
  return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP,
                      _("The model server at %s failed with HTTP %u (%s)."),
                      endpoint, status, reason ? reason : "error");
}

/* ---------------------------------------------------------------- model lists */

static const char *
list_path (RkModelApi api)
{
  return api == RK_MODEL_API_OLLAMA ? "/api/tags" : "/v1/models";
}

/* ---------------------------------------------------------------- resolve */

typedef struct
{
  guint      next_candidate;
  GStrv      candidates;       /* endpoints to try */
  char      *endpoint;         /* the one being probed */
  int        step;             /* 0: /api/tags, 1: /v1/models, 2: /health */
  GError    *first_error;
} ResolveData;

static void
resolve_data_free (ResolveData *data)
{
  g_strfreev (data->candidates);
  g_free (data->endpoint);
  g_clear_error (&data->first_error);
  g_free (data);
}

static void resolve_next_candidate (GTask *task);
static void resolve_probe (GTask *task);

static void
resolve_done (GTask      *task,
              RkModelApi  api)
{
  RkModelClient *self = g_task_get_source_object (task);
  ResolveData *data = g_task_get_task_data (task);

  g_free (self->resolved_endpoint);
  self->resolved_endpoint = g_strdup (data->endpoint);
  self->resolved_api = api;
  g_debug ("using %s (%s)", data->endpoint, api == RK_MODEL_API_OLLAMA ? "ollama" : "openai");
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
resolve_fail (GTask  *task,
              GError *error)
{
  ResolveData *data = g_task_get_task_data (task);

  /* Unreachable: try the next default candidate, if any. */
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE) &&
      data->candidates[data->next_candidate] != NULL)
    {
      if (data->first_error == NULL)
        data->first_error = error;
      else
        g_error_free (error);
      resolve_next_candidate (task);
      return;
    }
  if (g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE) &&
      g_strv_length (data->candidates) > 1)
    {
      g_autofree char *list = g_strjoinv (", ", data->candidates);
      g_error_free (error);
      error = g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE,
                           _("No model server answers on this computer (tried %s); start Ollama, llama-server or LM Studio, or set the server address in Preferences."),
                           list);
    }
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
probe_cb (GObject      *source,
          GAsyncResult *res,
          gpointer      user_data)
{
  GTask *task = user_data;
  RkModelClient *self = g_task_get_source_object (task);
  ResolveData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(HttpResult) result = http_op_finish (res, &error);
  RkModelApi api = self->api;

  if (result == NULL)
    {
      resolve_fail (task, g_steal_pointer (&error));
      return;
    }

  if (result->status == SOUP_STATUS_SERVICE_UNAVAILABLE)
    {
      resolve_fail (task, http_status_error (data->endpoint, result->status, result->body));
      return;
    }

  if (api != RK_MODEL_API_AUTO)
    {
      /* Any answer shows someone is there; /health's 503 was handled above. */
      resolve_done (task, api);
      return;
    }

  switch (data->step)
    {
    case 0:
      if (result->status == SOUP_STATUS_OK)
        {
          g_autoptr(GPtrArray) models = rk_model_replies_parse_list (RK_MODEL_API_OLLAMA, result->body, NULL);
          if (models != NULL)
            {
              resolve_done (task, RK_MODEL_API_OLLAMA);
              return;
            }
        }
      data->step = 1;
      resolve_probe (task);
      return;
    case 1:
      if (result->status == SOUP_STATUS_OK)
        {
          resolve_done (task, RK_MODEL_API_OPENAI);
          return;
        }
      data->step = 2;
      resolve_probe (task);
      return;
    default:
      resolve_fail (task, g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                                       _("The server at %s answers, but not as a model server Reckon knows (Ollama or OpenAI-compatible)."),
                                       data->endpoint));
      return;
    }
}

static void
resolve_probe (GTask *task)
{
  RkModelClient *self = g_task_get_source_object (task);
  ResolveData *data = g_task_get_task_data (task);
  const char *path;

  if (self->api == RK_MODEL_API_AUTO)
    path = data->step == 0 ? "/api/tags" : data->step == 1 ? "/v1/models" : "/health";
  else
    path = list_path (self->api);
  http_op_start (self, data->endpoint, self->api, "GET", path, NULL, NULL,
                 g_task_get_cancellable (task), probe_cb, task);
}

static void
resolve_next_candidate (GTask *task)
{
  RkModelClient *self = g_task_get_source_object (task);
  ResolveData *data = g_task_get_task_data (task);
  const char *candidate = data->candidates[data->next_candidate++];

  g_free (data->endpoint);
  data->endpoint = normalize_endpoint (candidate);
  data->step = 0;
  if (data->endpoint == NULL)
    {
      g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE,
                               _("“%s” is not a valid model server address."), candidate);
      g_object_unref (task);
      return;
    }
  if (!self->allow_remote && !rk_model_endpoint_is_local (data->endpoint))
    {
      g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_REMOTE_REFUSED,
                               _("%s is not on this computer; Reckon only sends your data to a model server on this computer unless you allow remote servers in Preferences."),
                               data->endpoint);
      g_object_unref (task);
      return;
    }
  resolve_probe (task);
}

void
rk_model_client_resolve_async (RkModelClient       *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GTask *task;
  ResolveData *data;

  g_return_if_fail (RK_IS_MODEL_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_model_client_resolve_async);
  g_task_set_check_cancellable (task, FALSE);
  data = g_new0 (ResolveData, 1);
  g_task_set_task_data (task, data, (GDestroyNotify) resolve_data_free);

  if (self->resolved_endpoint != NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  if (self->endpoint != NULL && self->endpoint[0] != '\0')
    {
      const char *one[] = { self->endpoint, NULL };
      data->candidates = g_strdupv ((GStrv) one);
    }
  else
    data->candidates = g_strdupv (self->candidates ? self->candidates : (GStrv) default_candidates);
  if (data->candidates[0] == NULL)
    {
      g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE,
                               _("No model server address is set."));
      g_object_unref (task);
      return;
    }
  resolve_next_candidate (task);
}

gboolean
rk_model_client_resolve_finish (RkModelClient *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Whether the endpoint was resolved for the call @task; when not, @task
 * has returned the error and is released. */
static gboolean
resolved_or_fail (RkModelClient *self,
                  GAsyncResult  *res,
                  GTask         *task)
{
  GError *error = NULL;

  if (rk_model_client_resolve_finish (self, res, &error))
    return TRUE;
  g_task_return_error (task, error);
  g_object_unref (task);
  return FALSE;
}

/* ---------------------------------------------------------------- list models */

typedef struct
{
  gboolean   capabilities;
  GPtrArray *models;
  guint      next;
} ListData;

static void
list_data_free (ListData *data)
{
  g_clear_pointer (&data->models, g_ptr_array_unref);
  g_free (data);
}

static void show_next (GTask *task);

static void
show_cb (GObject      *source,
         GAsyncResult *res,
         gpointer      user_data)
{
  GTask *task = user_data;
  ListData *data = g_task_get_task_data (task);
  RkModelInfo *info = g_ptr_array_index (data->models, data->next - 1);
  g_autoptr(HttpResult) result = http_op_finish_or_fail (res, task);

  if (result == NULL)
    return;
  /* Older Ollama versions have no capabilities: leave them unknown. */
  if (result->status == SOUP_STATUS_OK)
    info->tools_known = rk_model_replies_parse_capabilities (result->body, &info->tools);
  show_next (task);
}

static void
show_next (GTask *task)
{
  RkModelClient *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  RkModelInfo *info;
  g_autoptr(JsonBuilder) b = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *body = NULL;

  if (data->next >= data->models->len)
    {
      g_task_return_pointer (task, g_steal_pointer (&data->models), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  info = g_ptr_array_index (data->models, data->next++);
  b = json_builder_new ();
  json_builder_begin_object (b);
  rk_json_add_string_member (b, "model", info->name);
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  body = json_to_string (node, FALSE);
  http_op_start (self, self->resolved_endpoint, self->resolved_api, "POST", "/api/show", body, NULL,
                 g_task_get_cancellable (task), show_cb, task);
}

static void
list_cb (GObject      *source,
         GAsyncResult *res,
         gpointer      user_data)
{
  GTask *task = user_data;
  RkModelClient *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(HttpResult) result = http_op_finish_or_fail (res, task);

  if (result == NULL)
    return;
  if (result->status != SOUP_STATUS_OK)
    {
      g_task_return_error (task, http_status_error (self->resolved_endpoint, result->status, result->body));
      g_object_unref (task);
      return;
    }
  data->models = rk_model_replies_parse_list (self->resolved_api, result->body, &error);
  if (data->models == NULL)
    {
      g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL,
                               _("The model server at %s sent a malformed model list."),
                               self->resolved_endpoint);
      g_object_unref (task);
      return;
    }
  if (data->capabilities && self->resolved_api == RK_MODEL_API_OLLAMA)
    show_next (task);
  else
    {
      g_task_return_pointer (task, g_steal_pointer (&data->models), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
    }
}

static void
list_resolved_cb (GObject      *source,
                  GAsyncResult *res,
                  gpointer      user_data)
{
  GTask *task = user_data;
  RkModelClient *self = RK_MODEL_CLIENT (source);

  if (!resolved_or_fail (self, res, task))
    return;
  http_op_start (self, self->resolved_endpoint, self->resolved_api, "GET",
                 list_path (self->resolved_api), NULL, NULL,
                 g_task_get_cancellable (task), list_cb, task);
}

void
rk_model_client_list_models_async (RkModelClient       *self,
                                   gboolean             capabilities,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task;
  ListData *data;

  g_return_if_fail (RK_IS_MODEL_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_model_client_list_models_async);
  g_task_set_check_cancellable (task, FALSE);
  data = g_new0 (ListData, 1);
  data->capabilities = capabilities;
  g_task_set_task_data (task, data, (GDestroyNotify) list_data_free);
  rk_model_client_resolve_async (self, cancellable, list_resolved_cb, task);
}

GPtrArray *
rk_model_client_list_models_finish (RkModelClient *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---------------------------------------------------------------- version */

/* Where servers report their version, in the order asked: Ollama has
 * /api/version; of the OpenAI-compatible ones vLLM has /version and
 * llama.cpp's server names its build in /props. */
static const struct
{
  RkModelApi  api;
  const char *path;
  const char *member;
  const char *prefix;  /* the server's name, where the path says it */
} version_probes[] = {
  { RK_MODEL_API_OLLAMA, "/api/version", "version", "Ollama " },
  { RK_MODEL_API_OPENAI, "/version", "version", "" },
  { RK_MODEL_API_OPENAI, "/props", "build_info", "llama.cpp " },
};

static void version_probe_next (GTask *task);

static void
version_cb (GObject      *source,
            GAsyncResult *res,
            gpointer      user_data)
{
  GTask *task = user_data;
  guint *next = g_task_get_task_data (task);
  g_autoptr(HttpResult) result = http_op_finish_or_fail (res, task);
  g_autofree char *version = NULL;

  if (result == NULL)
    return;
  if (result->status == SOUP_STATUS_OK)
    version = rk_model_replies_parse_version (result->body, version_probes[*next - 1].member);
  if (version != NULL)
    {
      g_task_return_pointer (task, g_strconcat (version_probes[*next - 1].prefix, version, NULL), g_free);
      g_object_unref (task);
      return;
    }
  version_probe_next (task);
}

static void
version_probe_next (GTask *task)
{
  RkModelClient *self = g_task_get_source_object (task);
  guint *next = g_task_get_task_data (task);

  while (*next < G_N_ELEMENTS (version_probes) && version_probes[*next].api != self->resolved_api)
    (*next)++;
  if (*next >= G_N_ELEMENTS (version_probes))
    {
      g_task_return_pointer (task, NULL, NULL);
      g_object_unref (task);
      return;
    }
  (*next)++;
  http_op_start (self, self->resolved_endpoint, self->resolved_api, "GET",
                 version_probes[*next - 1].path, NULL, NULL,
                 g_task_get_cancellable (task), version_cb, task);
}

static void
version_resolved_cb (GObject      *source,
                     GAsyncResult *res,
                     gpointer      user_data)
{
  GTask *task = user_data;

  if (!resolved_or_fail (RK_MODEL_CLIENT (source), res, task))
    return;
  version_probe_next (task);
}

void
rk_model_client_get_server_version_async (RkModelClient       *self,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (RK_IS_MODEL_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_model_client_get_server_version_async);
  g_task_set_task_data (task, g_new0 (guint, 1), g_free);
  rk_model_client_resolve_async (self, cancellable, version_resolved_cb, task);
}

char *
rk_model_client_get_server_version_finish (RkModelClient *self,
                                           GAsyncResult  *result,
                                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---------------------------------------------------------------- chat */

typedef struct
{
  JsonNode        *messages;
  JsonNode        *tools;
  JsonObject      *options;
  RkChatDeltaFunc  delta_func;
  gpointer         delta_data;
  GDestroyNotify   delta_destroy;
  RkChatStream    *chat;
  char            *model;
  char            *endpoint;
  GError          *pending_error;   /* the HTTP error, waiting for the model list */
} ChatData;

static void
chat_data_free (ChatData *data)
{
  g_clear_pointer (&data->messages, json_node_unref);
  g_clear_pointer (&data->tools, json_node_unref);
  g_clear_pointer (&data->options, json_object_unref);
  if (data->delta_destroy != NULL)
    data->delta_destroy (data->delta_data);
  g_clear_pointer (&data->chat, rk_chat_stream_free);
  g_free (data->model);
  g_free (data->endpoint);
  g_clear_error (&data->pending_error);
  g_free (data);
}

/* Ollama wants tool-call arguments as objects, not JSON text. */
static JsonNode *
messages_for_ollama (JsonNode *messages)
{
  JsonNode *copy = json_node_copy (messages);
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (copy))
    return copy;
  array = json_node_get_array (copy);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *m = json_array_get_element (array, i);
      JsonNode *calls;

      if (!JSON_NODE_HOLDS_OBJECT (m))
        continue;
      if (json_object_has_member (json_node_get_object (m), "content") &&
          JSON_NODE_HOLDS_NULL (json_object_get_member (json_node_get_object (m), "content")))
        json_object_set_string_member (json_node_get_object (m), "content", "");
      calls = json_object_get_member (json_node_get_object (m), "tool_calls");
      if (calls == NULL || !JSON_NODE_HOLDS_ARRAY (calls))
        continue;
      for (guint j = 0; j < json_array_get_length (json_node_get_array (calls)); j++)
        {
          JsonNode *call = json_array_get_element (json_node_get_array (calls), j);
          JsonNode *function, *arguments;

          if (!JSON_NODE_HOLDS_OBJECT (call) ||
              (function = json_object_get_member (json_node_get_object (call), "function")) == NULL ||
              !JSON_NODE_HOLDS_OBJECT (function) ||
              (arguments = json_object_get_member (json_node_get_object (function), "arguments")) == NULL ||
              !JSON_NODE_HOLDS_VALUE (arguments) || json_node_get_value_type (arguments) != G_TYPE_STRING)
            continue;
          {
            JsonObject *parsed = rk_json_parse_object (json_node_get_string (arguments), -1,
                                                       RK_CHAT_MAX_TOOL_ARGUMENTS, RK_CHAT_MAX_JSON_DEPTH,
                                                       RK_JSON_SCAN_DEFAULT, NULL);

            if (parsed != NULL)
              json_object_set_object_member (json_node_get_object (function), "arguments", parsed);
            else
              {
                /* What the model wrote was not an object: keep its text visible. */
                JsonObject *wrapper = json_object_new ();
                json_object_set_string_member (wrapper, "text", json_node_get_string (arguments));
                json_object_set_object_member (json_node_get_object (function), "arguments", wrapper);
              }
          }
        }
    }
  return copy;
}

static char *
build_chat_body (RkModelApi  api,
                 ChatData   *data)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  JsonObject *ollama_options = NULL;

  json_node_take_object (root, body);
  json_object_set_string_member (body, "model", data->model);
  if (api == RK_MODEL_API_OLLAMA)
    json_object_set_member (body, "messages", messages_for_ollama (data->messages));
  else
    json_object_set_member (body, "messages", json_node_copy (data->messages));
  json_object_set_boolean_member (body, "stream", TRUE);
  if (api == RK_MODEL_API_OPENAI)
    {
      JsonObject *stream_options = json_object_new ();
      json_object_set_boolean_member (stream_options, "include_usage", TRUE);
      json_object_set_object_member (body, "stream_options", stream_options);
    }
  if (data->tools != NULL && !JSON_NODE_HOLDS_NULL (data->tools))
    json_object_set_member (body, "tools", json_node_copy (data->tools));

  if (data->options != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;
      static const char * const reserved[] = { "model", "messages", "stream", "tools", NULL };
      static const char * const ollama_top[] = { "format", "keep_alive", "think", NULL };

      json_object_iter_init (&iter, data->options);
      while (json_object_iter_next (&iter, &name, &value))
        {
          if (g_strv_contains (reserved, name))
            continue;
          if (api == RK_MODEL_API_OPENAI || g_strv_contains (ollama_top, name))
            json_object_set_member (body, name, json_node_copy (value));
          else
            {
              if (ollama_options == NULL)
                {
                  ollama_options = json_object_new ();
                  json_object_set_object_member (body, "options", ollama_options);
                }
              json_object_set_member (ollama_options,
                                      strcmp (name, "max_tokens") == 0 ? "num_predict" : name,
                                      json_node_copy (value));
            }
        }
    }
  return json_to_string (root, FALSE);
}

static void
chat_delta_cb (const RkChatDelta *delta,
               gpointer           user_data)
{
  ChatData *data = user_data;

  if (data->delta_func != NULL)
    data->delta_func (delta, data->delta_data);
}

static gboolean
model_in_list (GPtrArray  *models,
               const char *model)
{
  for (guint i = 0; i < models->len; i++)
    {
      RkModelInfo *info = g_ptr_array_index (models, i);
      /* Ollama treats "name" and "name:latest" alike. */
      if (strcmp (info->name, model) == 0 ||
          (g_str_has_suffix (info->name, ":latest") &&
           strlen (info->name) == strlen (model) + 7 &&
           strncmp (info->name, model, strlen (model)) == 0))
        return TRUE;
    }
  return FALSE;
}

static char *
join_model_names (GPtrArray *models)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < models->len && i < 20; i++)
    {
      if (i > 0)
        g_string_append (s, ", ");
      g_string_append (s, ((RkModelInfo *) g_ptr_array_index (models, i))->name);
    }
  if (models->len > 20)
    g_string_append_printf (s, _(" and %u more"), models->len - 20);
  return g_string_free (s, FALSE);
}

static GError *
model_missing_error (const char *endpoint,
                     const char *model,
                     GPtrArray  *models)
{
  g_autofree char *names = NULL;

  if (models->len == 0)
    return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_MODEL_MISSING,
                        _("The model “%s” is not available at %s, which has no models installed."),
                        model, endpoint);
  names = join_model_names (models);
  return g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_MODEL_MISSING,
                      _("The model “%s” is not available at %s; the models there are: %s."),
                      model, endpoint, names);
}

/* After a 404 (or an in-stream "not found"): is the model really missing? */
static void
missing_list_cb (GObject      *source,
                 GAsyncResult *res,
                 gpointer      user_data)
{
  GTask *task = user_data;
  ChatData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) models = rk_model_client_list_models_finish (RK_MODEL_CLIENT (source), res, NULL);

  if (models != NULL && !model_in_list (models, data->model))
    g_task_return_error (task, model_missing_error (data->endpoint, data->model, models));
  else
    g_task_return_error (task, g_steal_pointer (&data->pending_error));
  g_object_unref (task);
}

static void
check_model_list_cb (GObject      *source,
                     GAsyncResult *res,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkModelClient *self = RK_MODEL_CLIENT (source);
  const char *model = rk_model_client_get_model (self);
  GError *error = NULL;
  g_autoptr(GPtrArray) models = rk_model_client_list_models_finish (self, res, &error);

  if (models == NULL)
    g_task_return_error (task, error);
  else if (model != NULL && *model != '\0' && !model_in_list (models, model))
    g_task_return_error (task, model_missing_error (rk_model_client_get_resolved_endpoint (self), model, models));
  else
    g_task_return_boolean (task, TRUE);
}

void
rk_model_client_check_model_async (RkModelClient       *self,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (RK_IS_MODEL_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_model_client_check_model_async);
  rk_model_client_list_models_async (self, FALSE, cancellable, check_model_list_cb, task);
}

gboolean
rk_model_client_check_model_finish (RkModelClient  *self,
                                    GAsyncResult   *result,
                                    GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
check_model_then_fail (GTask  *task,
                       GError *error)
{
  RkModelClient *self = g_task_get_source_object (task);
  ChatData *data = g_task_get_task_data (task);

  data->pending_error = error;
  rk_model_client_list_models_async (self, FALSE, g_task_get_cancellable (task), missing_list_cb, task);
}

static gboolean
mentions_missing_model (const char *message)
{
  g_autofree char *lower = g_utf8_strdown (message ? message : "", -1);

  return strstr (lower, "model") != NULL &&
         (strstr (lower, "not found") != NULL || strstr (lower, "does not exist") != NULL ||
          strstr (lower, "no such") != NULL);
}

static void
chat_http_cb (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  GTask *task = user_data;
  ChatData *data = g_task_get_task_data (task);
  g_autoptr(HttpResult) result = http_op_finish_or_fail (res, task);
  const char *server_error;

  if (result == NULL)
    return;
  if (result->status != SOUP_STATUS_OK)
    {
      GError *http_error = http_status_error (data->endpoint, result->status, result->body);
      g_autofree char *message = server_message (result->body);

      if (result->status == SOUP_STATUS_NOT_FOUND ||
          (result->status == SOUP_STATUS_BAD_REQUEST && mentions_missing_model (message)))
        check_model_then_fail (task, http_error);
      else
        {
          g_task_return_error (task, http_error);
          g_object_unref (task);
        }
      return;
    }
  if ((server_error = rk_chat_stream_get_server_error (data->chat)) != NULL)
    {
      GError *stream_error = g_error_new (RK_MODEL_ERROR, RK_MODEL_ERROR_SERVER,
                                          _("The model server at %s reported an error: %s"),
                                          data->endpoint, server_error);
      if (mentions_missing_model (server_error))
        check_model_then_fail (task, stream_error);
      else
        {
          g_task_return_error (task, stream_error);
          g_object_unref (task);
        }
      return;
    }
  g_task_return_pointer (task, rk_chat_stream_steal_reply (data->chat), (GDestroyNotify) rk_chat_reply_free);
  g_object_unref (task);
}

static void
chat_send (GTask *task)
{
  RkModelClient *self = g_task_get_source_object (task);
  ChatData *data = g_task_get_task_data (task);
  RkModelApi api = self->resolved_api;
  g_autofree char *body = NULL;

  data->endpoint = g_strdup (self->resolved_endpoint);
  data->chat = rk_chat_stream_new (api == RK_MODEL_API_OLLAMA ? RK_CHAT_WIRE_OLLAMA : RK_CHAT_WIRE_OPENAI,
                                   chat_delta_cb, data);
  body = build_chat_body (api, data);
  http_op_start (self, data->endpoint, api, "POST",
                 api == RK_MODEL_API_OLLAMA ? "/api/chat" : "/v1/chat/completions",
                 body, data->chat, g_task_get_cancellable (task), chat_http_cb, task);
}

static void
first_model_cb (GObject      *source,
                GAsyncResult *res,
                gpointer      user_data)
{
  GTask *task = user_data;
  RkModelClient *self = RK_MODEL_CLIENT (source);
  ChatData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = rk_model_client_list_models_finish (self, res, &error);

  if (models == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  if (models->len == 0)
    {
      g_task_return_new_error (task, RK_MODEL_ERROR, RK_MODEL_ERROR_MODEL_MISSING,
                               _("The model server at %s has no models installed."),
                               self->resolved_endpoint);
      g_object_unref (task);
      return;
    }
  data->model = g_strdup (((RkModelInfo *) g_ptr_array_index (models, 0))->name);
  chat_send (task);
}

static void
chat_resolved_cb (GObject      *source,
                  GAsyncResult *res,
                  gpointer      user_data)
{
  GTask *task = user_data;
  RkModelClient *self = RK_MODEL_CLIENT (source);
  ChatData *data = g_task_get_task_data (task);

  if (!resolved_or_fail (self, res, task))
    return;
  if (data->model == NULL)
    rk_model_client_list_models_async (self, FALSE, g_task_get_cancellable (task), first_model_cb, task);
  else
    chat_send (task);
}

void
rk_model_client_chat_async (RkModelClient       *self,
                            JsonNode            *messages,
                            JsonNode            *tools,
                            JsonObject          *options,
                            RkChatDeltaFunc      delta_func,
                            gpointer             delta_data,
                            GDestroyNotify       delta_destroy,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task;
  ChatData *data;

  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  g_return_if_fail (messages != NULL && JSON_NODE_HOLDS_ARRAY (messages));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_model_client_chat_async);
  g_task_set_check_cancellable (task, FALSE);
  data = g_new0 (ChatData, 1);
  data->messages = json_node_copy (messages);
  data->tools = tools ? json_node_copy (tools) : NULL;
  data->options = options ? json_object_ref (options) : NULL;
  data->delta_func = delta_func;
  data->delta_data = delta_data;
  data->delta_destroy = delta_destroy;
  data->model = (self->model && self->model[0]) ? g_strdup (self->model) : NULL;
  g_task_set_task_data (task, data, (GDestroyNotify) chat_data_free);
  rk_model_client_resolve_async (self, cancellable, chat_resolved_cb, task);
}

RkChatReply *
rk_model_client_chat_finish (RkModelClient *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---------------------------------------------------------------- object */

static void
forget_resolution (RkModelClient *self)
{
  g_clear_pointer (&self->resolved_endpoint, g_free);
  self->resolved_api = RK_MODEL_API_AUTO;
}

void
rk_model_client_set_endpoint (RkModelClient *self,
                              const char    *endpoint)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  if (g_strcmp0 (self->endpoint, endpoint) == 0)
    return;
  g_free (self->endpoint);
  self->endpoint = g_strdup (endpoint);
  forget_resolution (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENDPOINT]);
}

const char *
rk_model_client_get_endpoint (RkModelClient *self)
{
  return self->endpoint;
}

void
rk_model_client_set_model (RkModelClient *self,
                           const char    *model)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  if (g_strcmp0 (self->model, model) == 0)
    return;
  g_free (self->model);
  self->model = g_strdup (model);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

const char *
rk_model_client_get_model (RkModelClient *self)
{
  return self->model;
}

void
rk_model_client_set_api (RkModelClient *self,
                         RkModelApi     api)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  if (self->api == api)
    return;
  self->api = api;
  forget_resolution (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_API]);
}

RkModelApi
rk_model_client_get_api (RkModelClient *self)
{
  return self->api;
}

void
rk_model_client_set_api_key (RkModelClient *self,
                             const char    *api_key)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  if (self->api_key != NULL)
    explicit_bzero (self->api_key, strlen (self->api_key));
  g_free (self->api_key);
  self->api_key = g_strdup (api_key);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_API_KEY]);
}

void
rk_model_client_set_allow_remote (RkModelClient *self,
                                  gboolean       allow)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  if (self->allow_remote == !!allow)
    return;
  self->allow_remote = !!allow;
  forget_resolution (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALLOW_REMOTE]);
}

gboolean
rk_model_client_get_allow_remote (RkModelClient *self)
{
  return self->allow_remote;
}

void
rk_model_client_set_idle_timeout (RkModelClient *self,
                                  guint          seconds)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  self->idle_timeout = MAX (seconds, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IDLE_TIMEOUT]);
}

void
rk_model_client_set_response_timeout (RkModelClient *self,
                                      guint          seconds)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  self->response_timeout = MAX (seconds, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESPONSE_TIMEOUT]);
}

void
rk_model_client_set_candidates (RkModelClient      *self,
                                const char * const *urls)
{
  g_return_if_fail (RK_IS_MODEL_CLIENT (self));
  g_strfreev (self->candidates);
  self->candidates = urls ? g_strdupv ((GStrv) urls) : NULL;
  forget_resolution (self);
}

const char *
rk_model_client_get_resolved_endpoint (RkModelClient *self)
{
  return self->resolved_endpoint;
}

RkModelApi
rk_model_client_get_resolved_api (RkModelClient *self)
{
  return self->resolved_api;
}

RkModelClient *
rk_model_client_new (void)
{
  return g_object_new (RK_TYPE_MODEL_CLIENT, NULL);
}

static void
rk_model_client_finalize (GObject *object)
{
  RkModelClient *self = RK_MODEL_CLIENT (object);

  g_clear_object (&self->session);
  g_free (self->endpoint);
  g_free (self->model);
  if (self->api_key != NULL)
    explicit_bzero (self->api_key, strlen (self->api_key));
  g_free (self->api_key);
  g_strfreev (self->candidates);
  g_free (self->resolved_endpoint);
  G_OBJECT_CLASS (rk_model_client_parent_class)->finalize (object);
}

static void
rk_model_client_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RkModelClient *self = RK_MODEL_CLIENT (object);

  switch (prop_id)
    {
    case PROP_ENDPOINT: g_value_set_string (value, self->endpoint); break;
    case PROP_MODEL: g_value_set_string (value, self->model); break;
    case PROP_API: g_value_set_enum (value, self->api); break;
    case PROP_API_KEY: g_value_set_string (value, self->api_key); break;
    case PROP_ALLOW_REMOTE: g_value_set_boolean (value, self->allow_remote); break;
    case PROP_IDLE_TIMEOUT: g_value_set_uint (value, self->idle_timeout); break;
    case PROP_RESPONSE_TIMEOUT: g_value_set_uint (value, self->response_timeout); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_model_client_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  RkModelClient *self = RK_MODEL_CLIENT (object);

  switch (prop_id)
    {
    case PROP_ENDPOINT: rk_model_client_set_endpoint (self, g_value_get_string (value)); break;
    case PROP_MODEL: rk_model_client_set_model (self, g_value_get_string (value)); break;
    case PROP_API: rk_model_client_set_api (self, g_value_get_enum (value)); break;
    case PROP_API_KEY: rk_model_client_set_api_key (self, g_value_get_string (value)); break;
    case PROP_ALLOW_REMOTE: rk_model_client_set_allow_remote (self, g_value_get_boolean (value)); break;
    case PROP_IDLE_TIMEOUT: rk_model_client_set_idle_timeout (self, g_value_get_uint (value)); break;
    case PROP_RESPONSE_TIMEOUT: rk_model_client_set_response_timeout (self, g_value_get_uint (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_model_client_class_init (RkModelClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = rk_model_client_finalize;
  object_class->get_property = rk_model_client_get_property;
  object_class->set_property = rk_model_client_set_property;

  properties[PROP_ENDPOINT] =
    g_param_spec_string ("endpoint", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_API] =
    g_param_spec_enum ("api", NULL, NULL, RK_TYPE_MODEL_API, RK_MODEL_API_AUTO,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ALLOW_REMOTE] =
    g_param_spec_boolean ("allow-remote", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_uint ("idle-timeout", NULL, NULL, 1, 24 * 3600, 60,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RESPONSE_TIMEOUT] =
    g_param_spec_uint ("response-timeout", NULL, NULL, 1, 24 * 3600, 300,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
rk_model_client_init (RkModelClient *self)
{
  g_autofree char *agent = g_strdup_printf ("Reckon/%s", PACKAGE_VERSION);

  self->session = soup_session_new_with_options ("user-agent", agent,
                                                 "max-conns-per-host", 4,
                                                 NULL);
  /* Reckon decides what is local; never route a local model through a proxy. */
  soup_session_set_proxy_resolver (self->session, NULL);
  self->api = RK_MODEL_API_AUTO;
  self->idle_timeout = 60;
  self->response_timeout = 300;
}
