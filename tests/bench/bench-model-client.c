/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-model-client.c — the model client's cost per streamed token.
 * A generated 100k-token OpenAI SSE stream goes (1) through the SSE parser,
 * chunk parsing and delta dispatch in memory, against copying the same bytes;
 * (2) through RkModelClient over loopback HTTP from the mock server, against
 * reading the same stream with libsoup without parsing. Medians of 5 runs. */
#define G_LOG_DOMAIN "bench-model-client"
#include "config.h"

#include <libsoup/soup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk-chat-stream.h"
#include "rk-mock-server.h"
#include "rk-model-client.h"

#define N_TOKENS  n_tokens
#define RUNS      5
#define READ_SIZE 16384
#define TARGET_US 20.0

/* 100k in memory and 10k over HTTP by default (the mock server's writing
 * dominates there); RK_BENCH_TOKENS changes the first. */
static guint n_tokens = 100000;
#define N_HTTP_TOKENS 10000

/* CPU time of this thread, in µs: the build machines are shared, and wall
 * time under someone else's load says little about our own cost. */
static double
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double
process_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static GPtrArray *
make_units (guint count)
{
  GPtrArray *units = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < count; i++)
    g_ptr_array_add (units, g_strdup_printf (
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
      "\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%u \"},\"finish_reason\":null}]}\n\n",
      i));
  g_ptr_array_add (units, g_strdup (
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n"));
  return units;
}

static int
cmp_double (gconstpointer a,
            gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v)
{
  qsort (v, RUNS, sizeof *v, cmp_double);
  return v[RUNS / 2];
}

static void
count_cb (const RkChatDelta *delta,
          gpointer           data)
{
  guint *n = data;

  if (delta->kind == RK_CHAT_DELTA_TEXT)
    (*n)++;
}

/* ------------------------------------------------------------ in memory */

static double
run_copy (const GString *stream)
{
  static char buf[READ_SIZE];
  volatile guint64 sum = 0;
  double start = thread_cpu_us ();

  for (gsize off = 0; off < stream->len; off += READ_SIZE)
    {
      gsize n = MIN (READ_SIZE, stream->len - off);
      memcpy (buf, stream->str + off, n);
      sum += (guchar) buf[n - 1];
    }
  (void) sum;
  return thread_cpu_us () - start;
}

static double
run_parse (const GString *stream)
{
  guint seen = 0;
  RkChatStream *chat = rk_chat_stream_new (RK_CHAT_WIRE_OPENAI, count_cb, &seen);
  double start = thread_cpu_us ();
  double elapsed;

  for (gsize off = 0; off < stream->len; off += READ_SIZE)
    if (!rk_chat_stream_feed (chat, stream->str + off, MIN (READ_SIZE, stream->len - off), NULL))
      g_error ("the benchmark stream did not parse");
  g_assert (rk_chat_stream_finish (chat, NULL));
  elapsed = thread_cpu_us () - start;
  g_assert (seen == N_TOKENS);
  rk_chat_stream_free (chat);
  return elapsed;
}

/* ------------------------------------------------------------ loopback */

typedef struct
{
  GMainLoop    *loop;
  GInputStream *stream;
  char          buf[READ_SIZE];
  gsize         total;
  GAsyncResult *result;
} RawRead;

static void raw_read_cb (GObject *source, GAsyncResult *res, gpointer data);

static void
raw_read_cb (GObject      *source,
             GAsyncResult *res,
             gpointer      data)
{
  RawRead *r = data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), res, NULL);

  if (n <= 0)
    {
      g_main_loop_quit (r->loop);
      return;
    }
  r->total += n;
  g_input_stream_read_async (r->stream, r->buf, sizeof r->buf, G_PRIORITY_DEFAULT, NULL, raw_read_cb, r);
}

static void
raw_send_cb (GObject      *source,
             GAsyncResult *res,
             gpointer      data)
{
  RawRead *r = data;

  r->stream = soup_session_send_finish (SOUP_SESSION (source), res, NULL);
  g_assert (r->stream != NULL);
  g_input_stream_read_async (r->stream, r->buf, sizeof r->buf, G_PRIORITY_DEFAULT, NULL, raw_read_cb, r);
}

static double
run_http_raw (SoupSession *session,
              const char  *url,
              gsize        expected,
              double      *cpu)
{
  g_autofree char *full = g_strconcat (url, "/v1/chat/completions", NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", full);
  const char *body = "{\"model\":\"bench\",\"messages\":[{\"role\":\"user\",\"content\":\"go\"}],\"stream\":true}";
  g_autoptr(GBytes) bytes = g_bytes_new_static (body, strlen (body));
  RawRead r = { 0 };
  gint64 start;
  double elapsed;

  r.loop = g_main_loop_new (NULL, FALSE);
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  start = g_get_monotonic_time ();
  *cpu = process_cpu_us ();
  soup_session_send_async (session, msg, G_PRIORITY_DEFAULT, NULL, raw_send_cb, &r);
  g_main_loop_run (r.loop);
  *cpu = process_cpu_us () - *cpu;
  elapsed = (double) (g_get_monotonic_time () - start);
  g_assert (r.total == expected);
  g_clear_object (&r.stream);
  g_main_loop_unref (r.loop);
  return elapsed;
}

static void
chat_done_cb (GObject      *source,
              GAsyncResult *res,
              gpointer      data)
{
  RawRead *r = data;

  r->result = g_object_ref (res);
  g_main_loop_quit (r->loop);
}

static double
run_http_client (RkModelClient *client,
                 JsonNode      *messages,
                 double        *cpu)
{
  RawRead r = { 0 };
  guint seen = 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  gint64 start;
  double elapsed;

  r.loop = g_main_loop_new (NULL, FALSE);
  start = g_get_monotonic_time ();
  *cpu = process_cpu_us ();
  rk_model_client_chat_async (client, messages, NULL, NULL, count_cb, &seen, NULL, NULL, chat_done_cb, &r);
  g_main_loop_run (r.loop);
  *cpu = process_cpu_us () - *cpu;
  elapsed = (double) (g_get_monotonic_time () - start);
  reply = rk_model_client_chat_finish (client, r.result, &error);
  g_assert_no_error (error);
  g_assert (seen == N_HTTP_TOKENS);
  g_clear_object (&r.result);
  g_main_loop_unref (r.loop);
  return elapsed;
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) units = NULL;
  g_autoptr(GPtrArray) http_units = NULL;
  g_autoptr(GString) stream = g_string_new (NULL);
  double copy[RUNS], parse[RUNS], raw[RUNS], client_t[RUNS], raw_cpu[RUNS], client_cpu[RUNS];
  double copy_us, parse_us, raw_us, client_us, raw_cpu_us, client_cpu_us;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) script = NULL;
  g_autofree char *script_text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkMockServer) server = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize wire_len;

  if (g_getenv ("RK_BENCH_TOKENS") != NULL)
    n_tokens = CLAMP (atoi (g_getenv ("RK_BENCH_TOKENS")), 100, 1000000);
  units = make_units (n_tokens);
  http_units = make_units (N_HTTP_TOKENS);

  for (guint i = 0; i < units->len; i++)
    g_string_append (stream, units->pdata[i]);

  for (guint i = 0; i < RUNS; i++)
    {
      copy[i] = run_copy (stream);
      parse[i] = run_parse (stream);
    }
  copy_us = median (copy) / N_TOKENS;
  parse_us = median (parse) / N_TOKENS;

  /* The mock server streams the same bytes, one token per HTTP chunk. */
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "api");
  json_builder_add_string_value (b, "openai");
  json_builder_set_member_name (b, "models");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "bench");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "repeat_last");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "turns");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "raw");
  json_builder_begin_array (b);
  for (guint i = 0; i < http_units->len; i++)
    json_builder_add_string_value (b, http_units->pdata[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  script = json_builder_get_root (b);
  script_text = json_to_string (script, FALSE);
  server = rk_mock_server_new (script_text, &error);
  g_assert_no_error (error);

  rk_model_client_set_endpoint (client, rk_mock_server_get_url (server));
  rk_model_client_set_api (client, RK_MODEL_API_OPENAI);
  rk_model_client_set_model (client, "bench");
  g_assert (json_parser_load_from_data (parser, "[{\"role\":\"user\",\"content\":\"go\"}]", -1, NULL));

  wire_len = 0;
  for (guint i = 0; i < http_units->len; i++)
    wire_len += strlen (http_units->pdata[i]);
  for (guint i = 0; i < RUNS; i++)
    {
      raw[i] = run_http_raw (session, rk_mock_server_get_url (server), wire_len, &raw_cpu[i]);
      client_t[i] = run_http_client (client, json_parser_get_root (parser), &client_cpu[i]);
    }
  raw_us = median (raw) / N_HTTP_TOKENS;
  client_us = median (client_t) / N_HTTP_TOKENS;
  raw_cpu_us = median (raw_cpu) / N_HTTP_TOKENS;
  client_cpu_us = median (client_cpu) / N_HTTP_TOKENS;

  printf ("model client: medians of %d runs; in memory %u tokens (%.1f MB of SSE, CPU time), "
          "loopback HTTP %u tokens, one per HTTP chunk\n",
          RUNS, N_TOKENS, stream->len / 1e6, N_HTTP_TOKENS);
  printf ("in memory:     copy %.3f µs/token, parse+dispatch %.3f µs/token, ratio %.0fx\n",
          copy_us, parse_us, parse_us / copy_us);
  printf ("loopback HTTP: wall: libsoup read only %.2f µs/token, RkModelClient %.2f µs/token, ratio %.2fx\n",
          raw_us, client_us, client_us / raw_us);
  printf ("loopback HTTP: CPU (both threads, server included): read only %.2f µs/token, "
          "RkModelClient %.2f µs/token, ratio %.2fx, client cost over the read %.2f µs/token\n",
          raw_cpu_us, client_cpu_us, client_cpu_us / raw_cpu_us, client_cpu_us - raw_cpu_us);
  printf ("target: parsing and dispatch under %.0f µs/token: %s (%.3f µs/token)\n",
          TARGET_US, parse_us < TARGET_US ? "met" : "NOT met", parse_us);
  return 0;
}
