/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-kernel.c — RkKernel against the real reckon-sandbox and the real
 * Python kernel: state, streaming, interrupt, artifacts, hostile bytes on
 * the protocol pipe, deaths, and the output cap. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-kernel.h"
#include "rk-sandbox-launcher.h"
#include "rk-test-kernel.h"
#include "rk-util.h"

/* The shared kernel fixture, and what only this test records. */
typedef struct
{
  RkTestKernel   k;
  GArray        *times;        /* gint64 arrival time of each event of k.events */
  guint          n_died;
} Fixture;

static void
time_cb (RkKernel      *kernel,
         RkKernelEvent *ev,
         Fixture       *f)
{
  gint64 now = g_get_monotonic_time ();

  g_array_append_val (f->times, now);
}

static void
died_cb (RkKernel       *kernel,
         RkSandboxLimit  limit,
         const char     *message,
         Fixture        *f)
{
  f->n_died++;
}

/* rk_test_kernel_init() plus this test's own bookkeeping; connected after
 * the fixture's event handler, so times line up with f->k.events. */
static gboolean
fixture_init (Fixture              *f,
              const RkKernelLimits *limits)
{
  memset (f, 0, sizeof *f);
  if (!rk_test_kernel_init (&f->k, limits))
    return FALSE;
  f->times = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_signal_connect (f->k.kernel, "event", G_CALLBACK (time_cb), f);
  g_signal_connect (f->k.kernel, "died", G_CALLBACK (died_cb), f);
  return TRUE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  if (!fixture_init (f, NULL))
    return;
  rk_test_kernel_start (&f->k);
  g_assert_cmpint (rk_kernel_get_state (f->k.kernel), ==, RK_KERNEL_STATE_IDLE);
  g_assert_nonnull (rk_kernel_get_ready_event (f->k.kernel));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->times, g_array_unref);
  rk_test_kernel_teardown (&f->k, data);
}

/* Runs one cell to its end; its events are in f->k.events. */
static RkKernelEvent *
run (Fixture    *f,
     const char *code)
{
  g_array_set_size (f->times, 0);
  return rk_test_kernel_run (&f->k, code);
}

static RkKernelEvent *
find (Fixture           *f,
      RkKernelEventType  type,
      guint             *index)
{
  return rk_test_kernel_find (&f->k, type, index);
}

static char *
stream_text (Fixture *f)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < f->k.events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (f->k.events, i);
      if (ev->type == RK_KERNEL_EVENT_STREAM)
        g_string_append (s, ev->text);
    }
  return g_string_free (s, FALSE);
}

static void
assert_result (Fixture    *f,
               const char *text)
{
  RkKernelEvent *result = find (f, RK_KERNEL_EVENT_RESULT, NULL);

  g_assert_nonnull (result);
  g_assert_cmpstr (result->text, ==, text);
}

static void
test_state (Fixture       *f,
            gconstpointer  data)
{
  if (f->k.kernel == NULL)
    return;
  g_assert_cmpint (run (f, "x = 41\ndef inc(v):\n    return v + 1\n")->status, ==, RK_KERNEL_STATUS_OK);
  g_assert_cmpint (run (f, "inc(x)")->status, ==, RK_KERNEL_STATUS_OK);
  assert_result (f, "42");

  /* Errors keep the session and come with a trimmed traceback. */
  g_assert_cmpint (run (f, "def f():\n    return 1 / 0\nf()")->status, ==, RK_KERNEL_STATUS_ERROR);
  {
    RkKernelEvent *error = find (f, RK_KERNEL_EVENT_ERROR, NULL);
    g_assert_nonnull (error);
    g_assert_cmpstr (error->ename, ==, "ZeroDivisionError");
    g_assert_nonnull (strstr (error->traceback, "return 1 / 0"));
    g_assert_null (strstr (error->traceback, "reckon_kernel.py"));
  }
  run (f, "x");
  assert_result (f, "41");
}

static void
test_stream (Fixture       *f,
             gconstpointer  data)
{
  guint first_index;
  RkKernelEvent *first;
  gint64 first_at, done_at;

  if (f->k.kernel == NULL)
    return;
  g_assert_cmpint (run (f, "import time\nprint('first')\ntime.sleep(2)\nprint('second')")->status,
                   ==, RK_KERNEL_STATUS_OK);
  first = find (f, RK_KERNEL_EVENT_STREAM, &first_index);
  g_assert_nonnull (first);
  g_assert_cmpstr (first->text, ==, "first\n");
  first_at = g_array_index (f->times, gint64, first_index);
  done_at = g_array_index (f->times, gint64, f->k.events->len - 1);
  g_test_message ("first line arrived %.3f s before the end of the cell",
                  (done_at - first_at) / 1e6);
  /* Had the line been held back until the cell ended, it would have come
   * with the second one, after the two-second sleep. */
  g_assert_cmpint (done_at - first_at, >, G_USEC_PER_SEC);
}

static gboolean
interrupt_cb (gpointer user_data)
{
  rk_kernel_interrupt (RK_KERNEL (user_data));
  return G_SOURCE_REMOVE;
}

static void
test_interrupt (Fixture       *f,
                gconstpointer  data)
{
  RkKernelEvent *done;

  if (f->k.kernel == NULL)
    return;
  run (f, "kept = 'still here'");
  g_timeout_add (500, interrupt_cb, f->k.kernel);
  done = run (f, "while True:\n    pass\n");
  /* Interrupted by SIGINT within the one-second grace: had it needed the
   * restart that follows the grace, the variable would be gone. */
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_INTERRUPTED);
  g_assert_null (done->message);
  run (f, "kept");
  assert_result (f, "'still here'");
}

static void
test_interrupt_escalation (Fixture       *f,
                           gconstpointer  data)
{
  RkKernelEvent *done;

  if (f->k.kernel == NULL)
    return;
  run (f, "lost = 1");
  g_timeout_add (500, interrupt_cb, f->k.kernel);
  done = run (f, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n");
  g_test_message ("stubborn cell -> %s", done->message);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_INTERRUPTED);
  g_assert_nonnull (done->message);
  /* A fresh kernel: usable, and without the old variables. */
  run (f, "'lost' in globals()");
  assert_result (f, "False");
}

typedef struct
{
  Fixture *f;
  guint    n_done;
  char    *results[3];
} Queue;

static void
queued_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Queue *q = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkKernelEvent) done = rk_kernel_execute_finish (RK_KERNEL (object), result, &error);

  g_assert_no_error (error);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  q->n_done++;
}

static void
queue_event_cb (RkKernel      *kernel,
                RkKernelEvent *ev,
                Queue         *q)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (q->results) && q->results[i] != NULL; i++)
    ;
  g_assert_cmpuint (i, <, G_N_ELEMENTS (q->results));
  q->results[i] = g_strdup (ev->text);
}

static void
test_queue (Fixture       *f,
            gconstpointer  data)
{
  Queue q = { f, 0, { NULL } };
  gboolean all_done = FALSE;
  gulong handler;

  if (f->k.kernel == NULL)
    return;
  handler = g_signal_connect (f->k.kernel, "event::result", G_CALLBACK (queue_event_cb), &q);
  rk_kernel_execute_async (f->k.kernel, "import time\ntime.sleep(0.2)\nv = 1\nv", NULL, queued_cb, &q);
  rk_kernel_execute_async (f->k.kernel, "v = v + 1\nv", NULL, queued_cb, &q);
  rk_kernel_execute_async (f->k.kernel, "v * 10", NULL, queued_cb, &q);
  while (!all_done)
    {
      g_main_context_iteration (NULL, TRUE);
      all_done = q.n_done == 3;
    }
  g_signal_handler_disconnect (f->k.kernel, handler);
  g_assert_cmpstr (q.results[0], ==, "1");
  g_assert_cmpstr (q.results[1], ==, "2");
  g_assert_cmpstr (q.results[2], ==, "20");
  for (guint i = 0; i < G_N_ELEMENTS (q.results); i++)
    g_free (q.results[i]);
}

static void
test_artifacts (Fixture       *f,
                gconstpointer  data)
{
  RkKernelEvent *figure, *file, *table;
  g_autofree char *figure_path = NULL;
  g_autofree char *file_path = NULL;

  if (f->k.kernel == NULL)
    return;
  g_assert_cmpint (run (f,
    "import pandas as pd, matplotlib.pyplot as plt\n"
    "df = pd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']})\n"
    "plt.plot(df['a'])\n"
    "plt.title('  Growth\\nof a  ')\n"
    "df.to_csv('new.csv', index=False)\n"
    "df")->status, ==, RK_KERNEL_STATUS_OK);

  figure = find (f, RK_KERNEL_EVENT_FIGURE, NULL);
  g_assert_nonnull (figure);
  g_assert_true (rk_path_is_beneath (figure->path));
  g_assert_cmpint (figure->width, ==, 640);
  /* the axes title, on one line, names the figure */
  g_assert_cmpstr (figure->title, ==, "Growth of a");
  figure_path = g_build_filename (rk_workspace_get_path (f->k.workspace), figure->path, NULL);
  g_assert_true (g_file_test (figure_path, G_FILE_TEST_IS_REGULAR));

  file = find (f, RK_KERNEL_EVENT_FILE, NULL);
  g_assert_nonnull (file);
  g_assert_cmpstr (file->path, ==, "new.csv");
  g_assert_cmpint (file->change, ==, RK_KERNEL_FILE_CREATED);
  file_path = g_build_filename (rk_workspace_get_path (f->k.workspace), file->path, NULL);
  g_assert_true (g_file_test (file_path, G_FILE_TEST_IS_REGULAR));

  g_assert_nonnull (find (f, RK_KERNEL_EVENT_RESULT, NULL));
  table = find (f, RK_KERNEL_EVENT_TABLE, NULL);
  if (table == NULL)
    {
      g_test_message ("no table event: reckon/table.py is not there yet");
    }
  else
    {
      g_autofree char *table_path = g_build_filename (rk_workspace_get_path (f->k.workspace), table->path, NULL);

      g_assert_cmpstr (table->name, ==, "df");
      g_assert_cmpint (table->rows, ==, 3);
      g_assert_cmpint (table->columns, ==, 2);
      g_assert_true (g_file_test (table_path, G_FILE_TEST_IS_REGULAR));
    }

  /* A native chart through reckon.chart (reckon/chart.py) and _hooks. */
  g_assert_cmpint (run (f, "import reckon\nreckon.chart(df, kind='bar', x='b', y='a', title='A by B');")->status,
                   ==, RK_KERNEL_STATUS_OK);
  {
    RkKernelEvent *chart = find (f, RK_KERNEL_EVENT_CHART, NULL);
    g_autofree char *chart_path = NULL;

    g_assert_nonnull (chart);
    g_assert_cmpstr (chart->title, ==, "A by B");
    chart_path = g_build_filename (rk_workspace_get_path (f->k.workspace), chart->path, NULL);
    g_assert_true (g_file_test (chart_path, G_FILE_TEST_IS_REGULAR));
  }

  /* Changing a file is reported as such. */
  run (f, "open('new.csv', 'a').write('4,w\\n')");
  file = find (f, RK_KERNEL_EVENT_FILE, NULL);
  g_assert_nonnull (file);
  g_assert_cmpint (file->change, ==, RK_KERNEL_FILE_MODIFIED);
}

/* Finds the kernel's real event pipe through /proc and writes to it. */
static const char hostile_prelude[] =
  "import os, reckon._hooks as h\n"
  "cid = h.current_id\n"
  "targets = []\n"
  "for name in os.listdir('/proc/self/fd'):\n"
  "    n = int(name)\n"
  "    try:\n"
  "        if n < 10 or not os.readlink('/proc/self/fd/%d' % n).startswith('pipe:'):\n"
  "            continue\n"
  "        info = open('/proc/self/fdinfo/%d' % n).read()\n"
  "    except OSError:\n"
  "        continue\n"
  "    flags = [l for l in info.splitlines() if l.startswith('flags:')][0]\n"
  "    if int(flags.split()[1], 8) & 3 == 1:\n"
  "        targets.append(n)\n"
  "assert targets, 'no writable pipe found'\n"
  "def send(b):\n"
  "    for t in targets:\n"
  "        os.write(t, b)\n"
  "def ev(s):\n"
  "    send(s.replace('CID', cid).encode() + b'\\n')\n";

static void
assert_no_escape (Fixture *f)
{
  for (guint i = 0; i < f->k.events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (f->k.events, i);

      if (ev->path != NULL)
        {
          g_autofree char *full = g_build_filename (rk_workspace_get_path (f->k.workspace), ev->path, NULL);
          g_autofree char *canon = g_canonicalize_filename (full, NULL);

          g_assert_true (rk_path_is_beneath (ev->path));
          g_assert_true (g_str_has_prefix (canon, rk_workspace_get_path (f->k.workspace)));
          g_assert_false (g_file_test (full, G_FILE_TEST_IS_SYMLINK));
        }
    }
}

static void
test_hostile (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *code = NULL;
  RkKernelEvent *done;

  if (f->k.kernel == NULL)
    return;

  code = g_strconcat (hostile_prelude,
    "send(b'A' * (5 * 1024 * 1024) + b'\\n')\n"
    "send(b'{\"type\": \"stream\", bad json\\n')\n"
    "ev('{\"type\":\"file\",\"id\":\"CID\",\"path\":\"../../etc/passwd\",\"size\":1,\"change\":\"created\"}')\n"
    "ev('{\"type\":\"file\",\"id\":\"CID\",\"path\":\"/etc/passwd\",\"size\":1,\"change\":\"created\"}')\n"
    "ev('{\"type\":\"table\",\"id\":\"CID\",\"path\":\"../t.rkt\",\"rows\":1,\"columns\":1}')\n"
    "os.symlink('/etc/passwd', 'link')\n"
    "ev('{\"type\":\"file\",\"id\":\"CID\",\"path\":\"link\",\"size\":1,\"change\":\"created\"}')\n"
    "send(b'{\"type\":\"stream\",\"id\":\"' + cid.encode() + b'\",\"name\":\"stdout\",\"text\":\"\\xff\\xfe\"}\\n')\n"
    "send(b'[' * 100000 + b'\\n')\n"
    "send(b'\\x00\\x01\\x02' * 1000 + b'\\n')\n"
    "send(b'B' * (10 * 1000 * 1000))\n"
    "print('survived')\n",
    NULL);
  done = run (f, code);
  g_test_message ("hostile cell ended with %s, %u protocol errors",
                  rk_kernel_status_to_string (done->status), rk_kernel_get_n_protocol_errors (f->k.kernel));
  g_assert_cmpuint (rk_kernel_get_n_protocol_errors (f->k.kernel), >=, 8);
  assert_no_escape (f);
  g_assert_null (find (f, RK_KERNEL_EVENT_FILE, NULL));

  /* The host and the kernel go on. */
  run (f, "6 * 7");
  assert_result (f, "42");

  /* Valid stream events straight onto the pipe, with the cell's id but
   * not its nonce: none is delivered, each is a protocol error. */
  g_free (code);
  code = g_strconcat (hostile_prelude,
    "chunk = 'y' * 65536\n"
    "for i in range(48):\n"
    "    ev('{\"type\":\"stream\",\"id\":\"CID\",\"name\":\"stdout\",\"text\":\"' + chunk + '\"}')\n",
    NULL);
  {
    guint before = rk_kernel_get_n_protocol_errors (f->k.kernel);
    g_autofree char *text = NULL;

    run (f, code);
    text = stream_text (f);
    g_test_message ("forged stream text delivered: %zu bytes", strlen (text));
    g_assert_cmpuint (strlen (text), ==, 0);
    g_assert_cmpuint (rk_kernel_get_n_protocol_errors (f->k.kernel) - before, ==, 48);
  }
}

/* docs/kernel-protocol.md, "Nonce": a cell cannot end itself early with a
 * forged "done", whichever way it sends one. */
static void
test_nonce (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *code = NULL;
  g_autofree char *text = NULL;
  RkKernelEvent *done;

  if (f->k.kernel == NULL)
    return;

  /* Straight onto the event pipe: with its id, without a nonce, with a
   * guessed one, and with the previous cell's nonce field copied from
   * nowhere (the cell never sees one). */
  code = g_strconcat (hostile_prelude,
    "ev('{\"type\":\"done\",\"id\":\"CID\",\"status\":\"ok\",\"duration_ms\":0,\"truncated_bytes\":0}')\n"
    "ev('{\"type\":\"done\",\"id\":\"CID\",\"nonce\":\"' + '0' * 32 + '\",\"status\":\"ok\",\"duration_ms\":0,\"truncated_bytes\":0}')\n"
    "ev('{\"type\":\"result\",\"id\":\"CID\",\"nonce\":\"\",\"text\":\"forged\"}')\n"
    "import time; time.sleep(0.4)\n"
    "print('still the same cell')\n",
    NULL);
  done = run (f, code);
  text = stream_text (f);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  g_assert_cmpint (done->duration_ms, >=, 400);
  g_assert_nonnull (strstr (text, "still the same cell"));
  g_assert_null (find (f, RK_KERNEL_EVENT_RESULT, NULL));

  /* Through the reckon package's own emit(): the kernel refuses to send
   * anything but artifacts for it. */
  g_clear_pointer (&text, g_free);
  done = run (f,
    "import reckon._hooks as h, time\n"
    "h.emit({'type': 'done', 'status': 'ok', 'duration_ms': 0, 'truncated_bytes': 0})\n"
    "h.emit({'type': 'result', 'text': 'forged'})\n"
    "time.sleep(0.4)\n"
    "print('emit did not end it')\n");
  text = stream_text (f);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  g_assert_cmpint (done->duration_ms, >=, 400);
  g_assert_nonnull (strstr (text, "emit did not end it"));
  g_assert_null (find (f, RK_KERNEL_EVENT_RESULT, NULL));

  /* The nonce is nowhere the cell's own names lead: not in its namespace,
   * the reckon package, the kernel object's attributes, the environment
   * or the command line. */
  run (f,
    "import re, sys, os, reckon, reckon._hooks as h, gc\n"
    "hexes = re.compile(r'[0-9a-f]{32}')\n"
    "def strings(d):\n"
    "    return [repr(v) for v in list(d.values())]\n"
    "places = strings(globals()) + strings(vars(reckon)) + strings(vars(h))\n"
    "k = [o for o in gc.get_objects() if type(o).__name__ == 'Kernel']\n"
    "places += [repr(v) for o in k for v in vars(o).values()]\n"
    "places += list(os.environ.values()) + sys.argv\n"
    "sum(1 for p in places if hexes.search(p))");
  assert_result (f, "0");

  /* A process the cell starts cannot reach the kernel's descriptors (the
   * kernel is not dumpable), so it cannot write the event pipe either.
   * Not where the sandbox's uid is the host's root (the flatpak harness run
   * as root: /proc files of an undumpable process belong to host root, so
   * DAC lets them be listed); a real Flatpak app never runs as root. */
  if (rk_sandbox_launcher_get_backend () == RK_SANDBOX_BACKEND_FLATPAK && getuid () == 0)
    {
      g_test_message ("flatpak backend as root: the undumpable-kernel check does not apply");
      run (f, "6 * 7");
      assert_result (f, "42");
      return;
    }
  run (f,
    "import subprocess, sys, os\n"
    "r = subprocess.run([sys.executable, '-c',\n"
    "    'import os, sys\\ntry:\\n    print(len(os.listdir(\"/proc/%d/fd\" % os.getppid())))\\nexcept OSError as e:\\n    print(type(e).__name__)'],\n"
    "    capture_output=True, text=True)\n"
    "r.stdout.strip()");
  assert_result (f, "'PermissionError'");

  /* The session goes on. */
  run (f, "6 * 7");
  assert_result (f, "42");
}

/* Issue 10, finding 8: a cell that runs past its wall-clock limit is
 * interrupted and reported as the "time" limit; the session (its
 * variables) goes on. One that ignores the interrupt costs a restart. */
static void
test_cell_time_limit (Fixture       *f,
                      gconstpointer  data)
{
  RkKernelEvent *done, *error;

  if (f->k.kernel == NULL)
    return;
  g_assert_cmpuint (rk_kernel_get_cell_time_limit (f->k.kernel), ==, 120);
  rk_kernel_set_cell_time_limit (f->k.kernel, 2);
  g_assert_cmpuint (rk_kernel_get_cell_time_limit (f->k.kernel), ==, 2);

  run (f, "kept = 11");
  done = run (f, "while True:\n    pass\n");
  g_test_message ("runaway cell -> %s (%s)", rk_kernel_status_to_string (done->status), done->message);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_ERROR);
  g_assert_cmpint (done->limit, ==, RK_SANDBOX_LIMIT_TIME);
  g_assert_nonnull (strstr (done->message, "2 seconds"));
  error = find (f, RK_KERNEL_EVENT_ERROR, NULL);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->ename, ==, "TimeLimitExceeded");
  g_assert_cmpint (error->limit, ==, RK_SANDBOX_LIMIT_TIME);
  run (f, "kept");
  assert_result (f, "11");

  done = run (f, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n");
  g_test_message ("stubborn runaway cell -> %s (%s)", rk_kernel_status_to_string (done->status), done->message);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_ERROR);
  g_assert_cmpint (done->limit, ==, RK_SANDBOX_LIMIT_TIME);
  run (f, "'kept' in globals()");
  assert_result (f, "False");

  /* A cell under the limit is untouched by it. */
  done = run (f, "import time\ntime.sleep(0.5)\n'quick'");
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  g_assert_cmpint (done->limit, ==, RK_SANDBOX_LIMIT_NONE);
}

/* Issue 10, finding 8: a MemoryError under the sandbox's memory limit is
 * reported as the "memory" limit, with its size, not as a bare MemoryError. */
static void
test_memory_limit (void)
{
  Fixture fx, *f = &fx;
  RkKernelLimits limits = { .memory_bytes = 768ull << 20 };
  RkKernelEvent *done, *error;

  if (!fixture_init (f, &limits))
    return;
  rk_test_kernel_start (&f->k);
  done = run (f, "kept = 5\nx = bytearray(2 * 1024 ** 3)\n");
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_ERROR);
  error = find (f, RK_KERNEL_EVENT_ERROR, NULL);
  g_assert_nonnull (error);
  g_test_message ("memory error: %s: %s (limit %s)", error->ename, error->evalue, rk_sandbox_limit_to_name (error->limit));
  g_assert_cmpint (error->limit, ==, RK_SANDBOX_LIMIT_MEMORY);
  g_assert_nonnull (strstr (error->evalue, "memory limit (768 MiB)"));
  run (f, "kept");
  assert_result (f, "5");
  fixture_teardown (f, NULL);
}

static void
test_death (Fixture       *f,
            gconstpointer  data)
{
  static const char * const killers[] = {
    "import os\nos._exit(3)",
    "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
  };
  RkKernelEvent *done;

  if (f->k.kernel == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (killers); i++)
    {
      RkKernelEvent *error;

      run (f, "gone = 1");
      done = run (f, killers[i]);
      g_test_message ("%s -> %s", killers[i], done->message);
      g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_DIED);
      g_assert_nonnull (done->message);
      error = find (f, RK_KERNEL_EVENT_ERROR, NULL);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->evalue, ==, done->message);
      g_assert_cmpuint (f->n_died, ==, i + 1);
      if (i == 0)
        g_assert_nonnull (strstr (done->message, "status 3"));
      else
        g_assert_nonnull (strstr (done->message, "killed"));

      /* The next cell runs in a fresh kernel. */
      g_assert_cmpint (run (f, "'gone' in globals()")->status, ==, RK_KERNEL_STATUS_OK);
      assert_result (f, "False");
    }

  /* A memory bomb against a 1 GiB limit: either Python's MemoryError or a
   * kill that names the limit; the session goes on either way. */
  done = run (f, "b = bytearray(4 * 1024 * 1024 * 1024)");
  g_test_message ("memory bomb -> %s %s", rk_kernel_status_to_string (done->status),
                  done->message ? done->message : "");
  if (done->status == RK_KERNEL_STATUS_ERROR)
    g_assert_cmpstr (find (f, RK_KERNEL_EVENT_ERROR, NULL)->ename, ==, "MemoryError");
  else
    {
      g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_DIED);
      g_assert_nonnull (done->message);
    }
  run (f, "1 + 1");
  assert_result (f, "2");
}

/* A kernel whose workspace may hold only 16 MiB: writing more ends it, and
 * the cell says which limit it hit. */
static void
test_disk_limit (void)
{
  Fixture fx, *f = &fx;
  RkKernelLimits limits = { 0 };
  RkKernelEvent *done;

  limits.disk_bytes = 16 * 1024 * 1024;
  if (!fixture_init (f, &limits))
    return;

  done = run (f,
    "import time\n"
    "with open('big.bin', 'wb') as out:\n"
    "    for i in range(64):\n"
    "        out.write(b'x' * (1024 * 1024))\n"
    "        out.flush()\n"
    "        time.sleep(0.05)\n"
    "time.sleep(10)\n");
  g_test_message ("disk bomb -> %s: %s (limit %s)", rk_kernel_status_to_string (done->status),
                  done->message ? done->message : "", done->limit != RK_SANDBOX_LIMIT_NONE ? rk_sandbox_limit_to_name (done->limit) : "none");
  if (rk_sandbox_launcher_has_capped_workspace ())
    {
      /* The workspace is a tmpfs of 16 MiB: the write past it fails at
       * once (ENOSPC), the cell says which limit, and the kernel lives on
       * with its variables. */
      RkKernelEvent *error = find (f, RK_KERNEL_EVENT_ERROR, NULL);
      g_autofree char *big = g_build_filename (rk_workspace_get_path (f->k.workspace), "big.bin", NULL);
      struct stat st;

      g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_ERROR);
      g_assert_nonnull (error);
      g_test_message ("capped: %s: %s", error->ename, error->evalue);
      g_assert_cmpstr (error->ename, ==, "OSError");
      g_assert_cmpint (error->limit, ==, RK_SANDBOX_LIMIT_DISK);
      g_assert_nonnull (strstr (error->evalue, "16 MiB"));
      /* What fitted was saved when the cell ended, no more than the cap. */
      g_assert_cmpint (g_stat (big, &st), ==, 0);
      g_assert_cmpint (st.st_size, <=, 16 * 1024 * 1024);
      g_assert_cmpint (st.st_size, >, 8 * 1024 * 1024);
      run (f, "import os; os.remove('big.bin'); 'clean'");
      assert_result (f, "'clean'");
      g_assert_false (g_file_test (big, G_FILE_TEST_EXISTS));
      fixture_teardown (f, NULL);
      return;
    }
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_DIED);
  g_assert_cmpint (done->limit, ==, RK_SANDBOX_LIMIT_DISK);
  g_assert_nonnull (strstr (done->message, "disk"));

  /* Over the limit, no kernel can start until files go. */
  {
    g_autofree char *big = g_build_filename (rk_workspace_get_path (f->k.workspace), "big.bin", NULL);

    f->k.finished = FALSE;
    rk_kernel_execute_async (f->k.kernel, "'blocked'", NULL, rk_test_kernel_execute_cb, &f->k);
    rk_test_wait_until (&f->k.finished, 120);
    g_test_message ("start over the limit -> %s", f->k.error ? f->k.error->message : "ran");
    if (f->k.error != NULL)
      {
        g_assert_error (f->k.error, RK_KERNEL_ERROR, RK_KERNEL_ERROR_LIMIT);
        g_clear_error (&f->k.error);
      }
    g_assert_cmpint (g_unlink (big), ==, 0);
  }
  run (f, "'clean'");
  assert_result (f, "'clean'");
  fixture_teardown (f, NULL);
}

static void
test_cell_cpu_limit (void)
{
  Fixture fx, *f = &fx;
  RkKernelLimits limits = { 0 };
  RkKernelEvent *done, *error;

  limits.cell_cpu_seconds = 1;
  if (!fixture_init (f, &limits))
    return;

  run (f, "kept = 11");
  done = run (f, "while True:\n    pass\n");
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_ERROR);
  error = find (f, RK_KERNEL_EVENT_ERROR, NULL);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->ename, ==, "CPUTimeLimitExceeded");
  g_assert_nonnull (strstr (error->evalue, "CPU time"));

  /* The kernel lives on, with its state, and the next cell has its own second. */
  run (f, "kept");
  assert_result (f, "11");
  done = run (f, "sum(range(1000))");
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  fixture_teardown (f, NULL);
}

static void
test_output_cap (Fixture       *f,
                 gconstpointer  data)
{
  RkKernelEvent *done;
  g_autofree char *text = NULL;

  if (f->k.kernel == NULL)
    return;
  done = run (f, "for i in range(3):\n    print('x' * (1024 * 1024))\n");
  text = stream_text (f);
  g_assert_cmpint (done->status, ==, RK_KERNEL_STATUS_OK);
  g_assert_cmpint (done->truncated_bytes, >, 2 * 1024 * 1024);
  g_assert_cmpuint (strlen (text), <=, (1 << 20) + 200);
  g_assert_nonnull (strstr (text, "output limit"));
}

static void
test_restart (Fixture       *f,
              gconstpointer  data)
{
  if (f->k.kernel == NULL)
    return;
  run (f, "before_restart = 1");
  f->k.finished = FALSE;
  rk_kernel_restart_async (f->k.kernel, NULL, rk_test_kernel_start_cb, &f->k);
  rk_test_wait_until (&f->k.finished, 120);
  g_assert_no_error (f->k.error);
  run (f, "'before_restart' in globals()");
  assert_result (f, "False");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/rk/kernel/state", test_state);
  ADD ("/rk/kernel/stream", test_stream);
  ADD ("/rk/kernel/interrupt", test_interrupt);
  ADD ("/rk/kernel/interrupt-escalation", test_interrupt_escalation);
  ADD ("/rk/kernel/queue", test_queue);
  ADD ("/rk/kernel/artifacts", test_artifacts);
  ADD ("/rk/kernel/hostile", test_hostile);
  ADD ("/rk/kernel/nonce", test_nonce);
  ADD ("/rk/kernel/cell-time-limit", test_cell_time_limit);
  ADD ("/rk/kernel/death", test_death);
  ADD ("/rk/kernel/output-cap", test_output_cap);
  ADD ("/rk/kernel/restart", test_restart);
#undef ADD
  g_test_add_func ("/rk/kernel/disk-limit", test_disk_limit);
  g_test_add_func ("/rk/kernel/cell-cpu-limit", test_cell_cpu_limit);
  g_test_add_func ("/rk/kernel/memory-limit", test_memory_limit);

  return g_test_run ();
}
