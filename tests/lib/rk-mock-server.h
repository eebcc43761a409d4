/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-mock-server.h — a scripted model server for tests: speaks the OpenAI
 * (SSE) and Ollama (NDJSON) wire formats over real HTTP on 127.0.0.1, replays
 * scripted turns with injected faults, and records every request it received.
 * The script format is described in tests/lib/mock-server.md. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _RkMockServer RkMockServer;

typedef struct
{
  char *method;
  char *path;
  char *body;    /* NUL-terminated; "" when none */
} RkMockRequest;

/* Starts serving @script (JSON text) on a random port of 127.0.0.1, in a
 * thread of its own, so the test's main loop and blocking waits do not matter. */
RkMockServer *rk_mock_server_new             (const char    *script,
                                              GError       **error);
RkMockServer *rk_mock_server_new_from_file   (const char    *path,
                                              GError       **error);
void          rk_mock_server_free            (RkMockServer  *self);

guint         rk_mock_server_get_port        (RkMockServer  *self);
/* "http://127.0.0.1:PORT" */
const char   *rk_mock_server_get_url         (RkMockServer  *self);
/* Closes the listening socket: new connections are refused from now on. */
void          rk_mock_server_stop_listening  (RkMockServer  *self);
/* Appends each request as one JSON line {method, path, body} to @path. */
void          rk_mock_server_set_record_file (RkMockServer  *self,
                                              const char    *path);

/* Every request so far, in order. (transfer full) array of RkMockRequest. */
GPtrArray    *rk_mock_server_get_requests    (RkMockServer  *self);
/* The parsed body of the @n-th chat request (either format), or NULL. */
JsonNode     *rk_mock_server_get_chat_request (RkMockServer *self,
                                               guint         n);
guint         rk_mock_server_get_n_chat_requests (RkMockServer *self);
/* Number of script turns used so far. */
guint         rk_mock_server_get_turns_used  (RkMockServer  *self);

void          rk_mock_request_free           (RkMockRequest *request);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMockServer, rk_mock_server_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMockRequest, rk_mock_request_free)

G_END_DECLS
