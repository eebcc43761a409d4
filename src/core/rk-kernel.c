/* rk-kernel.c — client side of the sandboxed Python kernel: spawns
 * reckon-sandbox, feeds it cells one at a time, relays validated events. */
#define G_LOG_DOMAIN "rk-kernel"
#include "config.h"
#include "rk-kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-font-cache.h"
#include "rk-import.h"
#include "rk-json.h"
#include "rk-limits.h"
#include "rk-line-splitter.h"
#include "rk-sandbox-launcher.h"
#include "rk-util.h"

#define KERNEL_SCRIPT       "reckon_kernel.py"
#define CHILD_REQUEST_FD    3
#define CHILD_EVENT_FD      4
#define CHILD_STATUS_FD     5
#define CHILD_SYNC_FD       6
#define READ_CHUNK          (64 * 1024)
#define TAIL_MAX            4096
#define SYNC_MAX_LINE       4096u
#define START_TIMEOUT_S     90
#define INTERRUPT_GRACE_MS  1000
#define EXIT_SETTLE_MS      500
#define HANGUP_GRACE_MS     1000
#define SHUTDOWN_GRACE_S    2
/* The kernel caps a cell's stream text at 1 MiB plus a note; the host holds
 * a hostile kernel to a little more than that, and to a bounded number of
 * artifacts. */
#define HOST_STREAM_CAP     ((gsize) 1 << 20) + 256 * 1024
#define HOST_ARTIFACT_CAP   1000
/* Wall-clock time a cell may run before it is interrupted (seconds). */
#define DEFAULT_CELL_TIME_S 120
/* reckon-sandbox's --memory and --disk defaults (docs/sandbox.md). */
#define DEFAULT_MEMORY_BYTES ((guint64) RK_LIMITS_MEMORY_DEFAULT_MIB << 20)
#define DEFAULT_DISK_BYTES   ((guint64) RK_LIMITS_DISK_DEFAULT_MIB << 20)
#define NONCE_BYTES         16

/* One spawned sandbox. Callbacks of its pipes hold a reference and check
 * `kernel`, which is cleared when the instance is torn down (restart,
 * death, dispose), so a late callback never touches a newer sandbox. */
typedef struct
{
  grefcount             ref_count;
  RkKernel             *kernel;
  RkSandboxChild       *child;            /* the run, through rk-sandbox-launcher */
  GSubprocess          *process;
  GCancellable         *cancellable;
  GInputStream         *events;
  GOutputStream        *requests;
  GInputStream         *err;
  GInputStream         *status;
  RkLineSplitter       *splitter;
  GString              *err_tail;
  GString              *status_text;
  char                 *host_reason;      /* why the host killed it */
  guint                 settle_id;
  guint                 hangup_id;
  gboolean              exited;
  gboolean              err_eof;
  gboolean              status_eof;
  gboolean              handled;
  /* A capped workspace (docs/sandbox.md): the sandbox's --sync-fd socket
   * (-1 without), the requests it has not answered yet, in order ('s' a
   * save, 'l' taking staged files in), the events held until a save has
   * put the files they name on the host (Held*), and the
   * rk_kernel_take_incoming_async() tasks waiting for their answer. */
  int                   sync_fd;
  GInputStream         *sync_in;
  RkLineSplitter       *sync_splitter;
  GQueue                asked;
  guint64               answers_read;
  guint64               saves_asked;
  guint64               saves_answered;
  GQueue                held;
  GQueue                takes;
} Instance;

typedef struct
{
  RkKernelEvent *ev;
  guint64        needs;   /* the save, by number, that must have answered */
} Held;

typedef struct
{
  char         *id;
  char         *code;
  /* Given to the kernel with the execute request; every event of the cell
   * must carry it (docs/kernel-protocol.md, "Nonce"). */
  char          nonce[NONCE_BYTES * 2 + 1];
  GCancellable *cancellable;
  gulong        cancelled_id;
} Cell;

struct _RkKernel
{
  GObject         parent_instance;

  RkWorkspace    *workspace;
  RkKernelLimits  limits;
  GStrv           inputs;
  RkKernelLimits  launched_limits; /* those of the last sandbox started */
  RkKernelState   state;
  Instance       *inst;
  RkKernelEvent  *ready;

  GQueue          start_tasks;     /* GTask*, waiting for "ready" */
  GQueue          cells;           /* GTask* of queued cells */
  GTask          *running;         /* the cell being run */

  guint64         next_cell;
  guint           start_timeout_id;
  guint           interrupt_id;
  guint           cell_time_id;    /* the running cell's time limit */
  gboolean        cell_timed_out;
  guint           n_protocol_errors;
  gsize           cell_stream_bytes;
  guint           cell_artifacts;
};

G_DEFINE_FINAL_TYPE (RkKernel, rk_kernel, G_TYPE_OBJECT)
G_DEFINE_QUARK (rk-kernel-error-quark, rk_kernel_error)

enum
{
  SIGNAL_EVENT,
  SIGNAL_STATE_CHANGED,
  SIGNAL_DIED,
  SIGNAL_PROTOCOL_ERROR,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum
{
  PROP_0,
  PROP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void spawn_instance   (RkKernel *self);
static void pump             (RkKernel *self);
static void handle_exit      (Instance *inst);

/* -- instances ---------------------------------------------------------- */

static Instance *
instance_ref (Instance *inst)
{
  g_ref_count_inc (&inst->ref_count);
  return inst;
}

static void
instance_unref (Instance *inst)
{
  if (!g_ref_count_dec (&inst->ref_count))
    return;
  g_clear_handle_id (&inst->settle_id, g_source_remove);
  g_clear_handle_id (&inst->hangup_id, g_source_remove);
  g_clear_object (&inst->process);
  g_clear_pointer (&inst->child, rk_sandbox_child_free);
  g_clear_object (&inst->cancellable);
  g_clear_object (&inst->events);
  g_clear_object (&inst->requests);
  g_clear_object (&inst->err);
  g_clear_object (&inst->status);
  g_clear_pointer (&inst->splitter, rk_line_splitter_free);
  g_string_free (inst->err_tail, TRUE);
  g_string_free (inst->status_text, TRUE);
  g_free (inst->host_reason);
  g_clear_object (&inst->sync_in);
  if (inst->sync_fd >= 0)
    close (inst->sync_fd);
  g_clear_pointer (&inst->sync_splitter, rk_line_splitter_free);
  g_queue_clear (&inst->asked);
  while (!g_queue_is_empty (&inst->held))
    {
      Held *h = g_queue_pop_head (&inst->held);
      rk_kernel_event_unref (h->ev);
      g_free (h);
    }
  while (!g_queue_is_empty (&inst->takes))
    {
      g_autoptr(GTask) task = g_queue_pop_head (&inst->takes);
      g_task_return_new_error (task, RK_KERNEL_ERROR, RK_KERNEL_ERROR_DIED, "%s",
                               _("The Python kernel stopped before the file reached it; add the file again."));
    }
  g_free (inst);
}

/* Detaches the instance from the kernel and kills its sandbox. */
static void
instance_kill (Instance *inst)
{
  if (inst->kernel != NULL && inst->kernel->inst == inst)
    inst->kernel->inst = NULL;
  inst->kernel = NULL;
  g_cancellable_cancel (inst->cancellable);
  if (inst->child != NULL)
    rk_sandbox_child_kill (inst->child);
  g_clear_handle_id (&inst->settle_id, g_source_remove);
  g_clear_handle_id (&inst->hangup_id, g_source_remove);
  instance_unref (inst);
}

static void
cell_free (Cell *cell)
{
  if (cell->cancellable != NULL && cell->cancelled_id != 0)
    g_cancellable_disconnect (cell->cancellable, cell->cancelled_id);
  g_clear_object (&cell->cancellable);
  g_free (cell->id);
  g_free (cell->code);
  g_free (cell);
}

static void
set_state (RkKernel      *self,
           RkKernelState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
  g_signal_emit (self, signals[SIGNAL_STATE_CHANGED], 0, (int) state);
}

static void
protocol_error (RkKernel     *self,
                const GError *error)
{
  self->n_protocol_errors++;
  g_debug ("dropped a line from the kernel: %s", error->message);
  g_signal_emit (self, signals[SIGNAL_PROTOCOL_ERROR], 0, error);
}

static guint64 cell_time_limit (RkKernel *self);

/* The value of the limit @limit held at, for a window or a terminal to say. */
static guint64
limit_value (RkKernel       *self,
             RkSandboxLimit  limit)
{
  switch (limit)
    {
    case RK_SANDBOX_LIMIT_MEMORY:
      return self->launched_limits.memory_bytes > 0 ? self->launched_limits.memory_bytes : DEFAULT_MEMORY_BYTES;
    case RK_SANDBOX_LIMIT_DISK:
      return self->launched_limits.disk_bytes > 0 ? self->launched_limits.disk_bytes : DEFAULT_DISK_BYTES;
    case RK_SANDBOX_LIMIT_TIME:
      return cell_time_limit (self);
    default:
      return 0;
    }
}

static void
emit_event (RkKernel      *self,
            RkKernelEvent *ev)
{
  GQuark detail = g_quark_from_static_string (rk_kernel_event_type_to_string (ev->type));

  if (ev->limit != RK_SANDBOX_LIMIT_NONE && ev->limit_value == 0)
    ev->limit_value = limit_value (self, ev->limit);
  g_signal_emit (self, signals[SIGNAL_EVENT], detail, ev);
}

/* -- finishing tasks ---------------------------------------------------- */

/* Fails every task of @queue (start waiters or queued cells) with @error. */
static void
fail_tasks (GQueue       *queue,
            const GError *error)
{
  GTask *task;

  while ((task = g_queue_pop_head (queue)) != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
    }
}

/* Ends the running cell with its DONE event. */
static void
finish_running (RkKernel      *self,
                RkKernelEvent *done)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->running);

  g_clear_handle_id (&self->interrupt_id, g_source_remove);
  g_clear_handle_id (&self->cell_time_id, g_source_remove);
  self->cell_timed_out = FALSE;
  if (task == NULL)
    return;
  if (self->state == RK_KERNEL_STATE_BUSY)
    set_state (self, self->inst != NULL ? RK_KERNEL_STATE_IDLE : RK_KERNEL_STATE_STOPPED);
  g_task_return_pointer (task, rk_kernel_event_ref (done), (GDestroyNotify) rk_kernel_event_unref);
}

/* Ends the running cell without a word from the kernel: it died, was
 * restarted, or would not stop. */
static void
abort_running (RkKernel       *self,
               RkKernelStatus  status,
               RkSandboxLimit  limit,
               const char     *message)
{
  Cell *cell;
  g_autoptr(RkKernelEvent) error = NULL;
  g_autoptr(RkKernelEvent) done = NULL;

  if (self->running == NULL)
    return;
  cell = g_task_get_task_data (self->running);

  error = rk_kernel_event_new (RK_KERNEL_EVENT_ERROR);
  error->id = g_strdup (cell->id);
  if (limit == RK_SANDBOX_LIMIT_TIME)
    error->ename = g_strdup ("TimeLimitExceeded");
  else
    error->ename = g_strdup (status == RK_KERNEL_STATUS_INTERRUPTED ? "KeyboardInterrupt" : "KernelDied");
  error->evalue = g_strdup (message);
  error->traceback = g_strdup ("");
  error->limit = limit;
  emit_event (self, error);

  done = rk_kernel_event_new (RK_KERNEL_EVENT_DONE);
  done->id = g_strdup (cell->id);
  done->status = status;
  done->message = g_strdup (message);
  done->limit = limit;
  emit_event (self, done);

  finish_running (self, done);
}

/* -- reading the kernel ------------------------------------------------- */

/* TRUE if @rel names a regular file beneath the workspace, reached without
 * following any symbolic link: the same check the export does. */
static gboolean
artifact_is_safe (RkKernel   *self,
                  const char *rel)
{
  int fd = rk_workspace_open_file (self->workspace, rel, NULL);

  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
}

/* Compares without an early exit, so the time taken says nothing about how
 * much of a guess was right. */
static gboolean
nonce_matches (const Cell *cell,
               const char *nonce)
{
  guint8 diff = 0;

  if (nonce == NULL || strlen (nonce) != NONCE_BYTES * 2)
    return FALSE;
  for (guint i = 0; i < NONCE_BYTES * 2; i++)
    diff |= (guint8) (cell->nonce[i] ^ nonce[i]);
  return diff == 0;
}

static void
make_nonce (char out[NONCE_BYTES * 2 + 1])
{
  guint8 raw[NONCE_BYTES];
  gsize got = 0;

  while (got < sizeof raw)
    {
      ssize_t n = getrandom (raw + got, sizeof raw - got, 0);

      if (n < 0 && errno == EINTR)
        continue;
      /* getrandom() only fails on kernels older than 3.17. */
      g_assert (n > 0);
      got += (gsize) n;
    }
  for (guint i = 0; i < NONCE_BYTES; i++)
    g_snprintf (out + 2 * i, 3, "%02x", raw[i]);
}

static guint64
cell_time_limit (RkKernel *self)
{
  return self->limits.cell_time_seconds > 0 ? self->limits.cell_time_seconds : DEFAULT_CELL_TIME_S;
}

static char *
time_limit_message (RkKernel *self)
{
  guint64 secs = cell_time_limit (self);

  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "The cell was stopped because it ran longer than its time limit of %" PRIu64 " second.",
                                       "The cell was stopped because it ran longer than its time limit of %" PRIu64 " seconds.",
                                       (gulong) MIN (secs, G_MAXULONG)),
                          secs);
}

/* Runs @func on the workspace folder, opened without following a symlink. */
static void
with_workspace_fd (RkKernel *self,
                   void    (*func) (int workspace_fd))
{
  int ws = rk_workspace_dup_fd (self->workspace, NULL);

  if (ws < 0)
    return;
  func (ws);
  close (ws);
}

static void
handle_event (RkKernel      *self,
              Instance      *inst,
              RkKernelEvent *ev)
{
  Cell *cell = self->running ? g_task_get_task_data (self->running) : NULL;

  if (ev->type == RK_KERNEL_EVENT_READY)
    {
      GTask *task;

      if (self->state != RK_KERNEL_STATE_STARTING)
        {
          g_autoptr(GError) error = g_error_new (RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                                                 "kernel sent “ready” while running");
          protocol_error (self, error);
          return;
        }
      if (ev->protocol != RK_KERNEL_PROTOCOL_VERSION)
        {
          g_autoptr(GError) error = g_error_new (RK_KERNEL_ERROR, RK_KERNEL_ERROR_PROTOCOL,
                                                 _("The Python kernel speaks protocol %d, but Reckon needs %d."),
                                                 (int) ev->protocol, RK_KERNEL_PROTOCOL_VERSION);
          g_clear_handle_id (&self->start_timeout_id, g_source_remove);
          instance_kill (inst);
          set_state (self, RK_KERNEL_STATE_STOPPED);
          fail_tasks (&self->start_tasks, error);
          fail_tasks (&self->cells, error);
          return;
        }
      g_clear_handle_id (&self->start_timeout_id, g_source_remove);
      g_clear_pointer (&self->ready, rk_kernel_event_unref);
      self->ready = rk_kernel_event_ref (ev);
      with_workspace_fd (self, rk_font_cache_keep);
      set_state (self, RK_KERNEL_STATE_IDLE);
      while ((task = g_queue_pop_head (&self->start_tasks)) != NULL)
        {
          g_task_return_boolean (task, TRUE);
          g_object_unref (task);
        }
      pump (self);
      return;
    }

  /* Only the running cell's events count; late or forged ids are dropped. */
  if (cell == NULL || g_strcmp0 (ev->id, cell->id) != 0)
    {
      g_debug ("dropped a “%s” event of cell %s", rk_kernel_event_type_to_string (ev->type), ev->id);
      return;
    }
  /* ... and so are lines without the cell's nonce: a cell that writes to
   * the event pipe itself knows its id, not its nonce. */
  if (!nonce_matches (cell, ev->nonce))
    {
      g_autoptr(GError) error = g_error_new (RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                                             "kernel sent a “%s” event without the cell's nonce",
                                             rk_kernel_event_type_to_string (ev->type));
      protocol_error (self, error);
      return;
    }

  switch (ev->type)
    {
    case RK_KERNEL_EVENT_STREAM:
    case RK_KERNEL_EVENT_RESULT:
      {
        gsize len = strlen (ev->text);

        if (self->cell_stream_bytes + len > HOST_STREAM_CAP)
          {
            self->cell_stream_bytes = HOST_STREAM_CAP;
            return;
          }
        self->cell_stream_bytes += len;
      }
      break;

    case RK_KERNEL_EVENT_TABLE:
    case RK_KERNEL_EVENT_FIGURE:
    case RK_KERNEL_EVENT_CHART:
    case RK_KERNEL_EVENT_FILE:
      if (self->cell_artifacts >= HOST_ARTIFACT_CAP)
        return;
      if (!artifact_is_safe (self, ev->path))
        {
          g_autoptr(GError) error = g_error_new (RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED,
                                                 "kernel named “%s”, which is not a regular file in the workspace",
                                                 ev->path);
          protocol_error (self, error);
          return;
        }
      self->cell_artifacts++;
      break;

    case RK_KERNEL_EVENT_DONE:
      if (self->cell_timed_out && ev->status != RK_KERNEL_STATUS_OK)
        {
          /* Stopped at its time limit: the interrupt is reported as that
           * limit, and the session (its variables) goes on. */
          g_autofree char *message = time_limit_message (self);
          g_autoptr(RkKernelEvent) error = rk_kernel_event_new (RK_KERNEL_EVENT_ERROR);
          g_autoptr(RkKernelEvent) done = rk_kernel_event_new (RK_KERNEL_EVENT_DONE);

          error->id = g_strdup (cell->id);
          error->ename = g_strdup ("TimeLimitExceeded");
          error->evalue = g_strdup (message);
          error->traceback = g_strdup ("");
          error->limit = RK_SANDBOX_LIMIT_TIME;
          emit_event (self, error);
          done->id = g_strdup (cell->id);
          done->status = RK_KERNEL_STATUS_ERROR;
          done->duration_ms = ev->duration_ms;
          done->truncated_bytes = ev->truncated_bytes;
          done->message = g_steal_pointer (&message);
          done->limit = RK_SANDBOX_LIMIT_TIME;
          emit_event (self, done);
          finish_running (self, done);
          pump (self);
          return;
        }
      emit_event (self, ev);
      finish_running (self, ev);
      pump (self);
      return;

    case RK_KERNEL_EVENT_READY:
    case RK_KERNEL_EVENT_STARTED:
    case RK_KERNEL_EVENT_ERROR:
    default:
      break;
    }

  emit_event (self, ev);
}

/* -- a capped workspace ------------------------------------------------- */

/* With a capped workspace the kernel's files are in the sandbox's tmpfs
 * until PID-1 saves them to the host's folder. Every event that names
 * files (or comes after one that does) is held until a save asked for when
 * it arrived has answered: the host then reads the files the event names,
 * and events still come in their order. */
static gboolean
names_files (const RkKernelEvent *ev)
{
  switch (ev->type)
    {
    case RK_KERNEL_EVENT_READY:   /* the font cache */
    case RK_KERNEL_EVENT_TABLE:
    case RK_KERNEL_EVENT_FIGURE:
    case RK_KERNEL_EVENT_CHART:
    case RK_KERNEL_EVENT_FILE:
    case RK_KERNEL_EVENT_DONE:    /* all the cell wrote */
      return TRUE;
    case RK_KERNEL_EVENT_STARTED:
    case RK_KERNEL_EVENT_STREAM:
    case RK_KERNEL_EVENT_RESULT:
    case RK_KERNEL_EVENT_ERROR:
    default:
      return FALSE;
    }
}

/* Asks the sandbox for a save ('s') or to take the staged files in ('l'). */
static gboolean
sync_ask (Instance *inst,
          char      what)
{
  ssize_t n;

  do
    n = write (inst->sync_fd, &what, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    return FALSE;
  g_queue_push_tail (&inst->asked, GINT_TO_POINTER ((int) what));
  if (what == 's')
    inst->saves_asked++;
  return TRUE;
}

static void
release_held (Instance *inst)
{
  Held *h;

  instance_ref (inst);
  while (inst->kernel != NULL && inst->kernel->inst == inst
         && (h = g_queue_peek_head (&inst->held)) != NULL && h->needs <= inst->saves_answered)
    {
      g_autoptr(RkKernelEvent) ev = h->ev;

      g_queue_pop_head (&inst->held);
      g_free (h);
      handle_event (inst->kernel, inst, ev);
    }
  instance_unref (inst);
}

static void
hold_event (Instance      *inst,
            RkKernelEvent *ev)
{
  Held *h = g_new0 (Held, 1);

  h->ev = ev;
  /* No save to wait for if it cannot be asked: the sandbox is going, and
   * its last save comes with its end. */
  if (names_files (ev) && sync_ask (inst, 's'))
    h->needs = inst->saves_asked;
  g_queue_push_tail (&inst->held, h);
  release_held (inst);
}

/* One answer of the sandbox, for the oldest request not answered yet. */
static gboolean
sync_line_cb (const char  *line,
              gsize        len,
              gpointer     user_data,
              GError     **error)
{
  Instance *inst = user_data;
  g_autoptr(GError) too_long = line == NULL ? g_error_new (RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                                                           "an answer longer than %u bytes", SYNC_MAX_LINE) : NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *given = NULL;
  const char *reason;
  gboolean ok = FALSE;
  guint64 id = 0;
  int what;

  if (g_queue_is_empty (&inst->asked))
    {
      g_debug ("the sandbox answered a request that was not asked");
      return TRUE;
    }
  /* Answers carry the number of their request: a line for any other (or
   * none) pairs with nothing and is dropped. */
  what = GPOINTER_TO_INT (g_queue_peek_head (&inst->asked));
  if (too_long == NULL
      && rk_sandbox_launcher_parse_answer (line, len, what == 'l' ? "loaded" : "saved", &id, &ok, &given,
                                           &local_error)
      && id != inst->answers_read + 1)
    {
      g_debug ("the sandbox answered request %" G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT, id,
               inst->answers_read + 1);
      return TRUE;
    }
  g_queue_pop_head (&inst->asked);
  inst->answers_read++;
  reason = given != NULL ? given : local_error != NULL ? local_error->message : too_long != NULL ? too_long->message : "";

  if (what == 'l')
    {
      g_autoptr(GTask) task = g_queue_pop_head (&inst->takes);

      if (task == NULL)
        return TRUE;
      if (ok)
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_new_error (task, RK_KERNEL_ERROR, RK_KERNEL_ERROR_LIMIT,
                                 _("The file could not be added to the running Python session: %s"), reason);
      return TRUE;
    }
  inst->saves_answered++;
  if (!ok && inst->kernel != NULL)
    {
      g_autoptr(GError) save_error = g_error_new (RK_KERNEL_ERROR, RK_KERNEL_ERROR_LIMIT,
                                                  "the workspace was not saved: %s", reason);
      protocol_error (inst->kernel, save_error);
    }
  release_held (inst);
  return TRUE;
}

static void
sync_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Instance *inst = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);

  if (inst->kernel != NULL && bytes != NULL && g_bytes_get_size (bytes) > 0)
    {
      gsize size;
      const guint8 *data = g_bytes_get_data (bytes, &size);

      rk_line_splitter_feed (inst->sync_splitter, (const char *) data, size, NULL);
      if (inst->kernel != NULL)
        {
          g_input_stream_read_bytes_async (inst->sync_in, 4096, G_PRIORITY_DEFAULT,
                                           inst->cancellable, sync_read_cb, inst);
          return;   /* the reference goes on to the next read */
        }
    }
  else if (inst->kernel != NULL)
    {
      /* The sandbox is gone, after its last save: nothing more to wait for. */
      inst->saves_answered = G_MAXUINT64;
      release_held (inst);
    }
  instance_unref (inst);
}

static gboolean
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  Instance *inst = user_data;
  RkKernel *self = inst->kernel;
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(RkKernelEvent) ev = NULL;

  /* A signal handler may have restarted or dropped the kernel. */
  if (self == NULL || self->inst != inst)
    return TRUE;
  if (line == NULL)
    {
      g_autoptr(GError) too_long = g_error_new (RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                                                "kernel sent a line longer than %u bytes", RK_KERNEL_MAX_LINE);
      protocol_error (self, too_long);
      return TRUE;
    }
  /* The kernel ends a line a cell may have left open with an empty one. */
  if (len == 0)
    return TRUE;
  ev = rk_kernel_event_parse (line, len, &parse_error);
  if (ev == NULL)
    {
      protocol_error (self, parse_error);
      return TRUE;
    }
  if (inst->sync_fd >= 0 && (names_files (ev) || !g_queue_is_empty (&inst->held)))
    hold_event (inst, g_steal_pointer (&ev));
  else
    handle_event (self, inst, ev);
  return TRUE;
}

static gboolean
hangup_timeout_cb (gpointer user_data)
{
  Instance *inst = user_data;

  inst->hangup_id = 0;
  if (!inst->exited && inst->child != NULL)
    {
      g_free (inst->host_reason);
      inst->host_reason = g_strdup (_("The Python kernel closed its connection to Reckon and was stopped."));
      rk_sandbox_child_kill (inst->child);
    }
  return G_SOURCE_REMOVE;
}

static void
events_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Instance *inst = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  g_autoptr(RkKernel) self = inst->kernel ? g_object_ref (inst->kernel) : NULL;

  if (self == NULL || self->inst != inst || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      instance_unref (inst);
      return;
    }

  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    {
      gsize size;
      const guint8 *data = g_bytes_get_data (bytes, &size);

      rk_line_splitter_feed (inst->splitter, (const char *) data, size, NULL);
      if (inst->kernel != NULL && self->inst == inst)
        {
          g_input_stream_read_bytes_async (inst->events, READ_CHUNK, G_PRIORITY_DEFAULT,
                                           inst->cancellable, events_read_cb, inst);
          return;   /* the reference goes on to the next read */
        }
    }
  else if (!inst->exited && inst->hangup_id == 0)
    {
      /* End of the event pipe: usually the kernel is exiting. If it lives
       * on, it can no longer report and is stopped. */
      inst->hangup_id = g_timeout_add_full (G_PRIORITY_DEFAULT, HANGUP_GRACE_MS, hangup_timeout_cb,
                                            instance_ref (inst), (GDestroyNotify) instance_unref);
    }
  instance_unref (inst);
}

/* Keeps the last TAIL_MAX bytes of the sandbox's stderr or status pipe. */
static void
tail_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Instance *inst = user_data;
  GInputStream *stream = G_INPUT_STREAM (object);
  gboolean is_err = (stream == inst->err);
  GString *tail = is_err ? inst->err_tail : inst->status_text;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (stream, result, &error);

  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    {
      gsize size;
      const char *data = g_bytes_get_data (bytes, &size);

      g_string_append_len (tail, data, (gssize) size);
      if (tail->len > TAIL_MAX)
        g_string_erase (tail, 0, (gssize) (tail->len - TAIL_MAX));
      if (!g_cancellable_is_cancelled (inst->cancellable))
        {
          g_input_stream_read_bytes_async (stream, READ_CHUNK, G_PRIORITY_DEFAULT,
                                           inst->cancellable, tail_read_cb, inst);
          return;
        }
    }
  if (is_err)
    inst->err_eof = TRUE;
  else
    inst->status_eof = TRUE;
  if (is_err && inst->err_tail->len > 0)
    g_debug ("sandbox stderr: %.300s", inst->err_tail->str);
  if (inst->exited && inst->err_eof && inst->status_eof)
    handle_exit (inst);
  instance_unref (inst);
}

/* -- exit and death ----------------------------------------------------- */

/* The limit named by the sandbox's status line or its stderr. */
static RkSandboxLimit
find_limit (Instance  *inst,
            gint64    *status_exit,
            gint64    *status_signal)
{
  return rk_sandbox_launcher_find_limit (inst->status_text->str, inst->status_text->len,
                                         inst->err_tail->str, status_exit, status_signal);
}

static char *
death_message (Instance       *inst,
               RkSandboxLimit *limit_out)
{
  gint64 status_exit, status_signal;
  RkSandboxLimit limit = find_limit (inst, &status_exit, &status_signal);
  int exit_code = -1, sig = -1;

  if (g_subprocess_get_if_exited (inst->process))
    exit_code = g_subprocess_get_exit_status (inst->process);
  else if (g_subprocess_get_if_signaled (inst->process))
    sig = g_subprocess_get_term_sig (inst->process);

  if (limit == RK_SANDBOX_LIMIT_NONE && exit_code == 124)
    limit = RK_SANDBOX_LIMIT_TIMEOUT;
  *limit_out = limit;
  if (limit != RK_SANDBOX_LIMIT_NONE)
    return rk_sandbox_limit_describe (limit);
  if (inst->host_reason != NULL)
    return g_strdup (inst->host_reason);
  if (status_signal < 0 && exit_code > 128 && exit_code < 128 + 65)
    status_signal = exit_code - 128;
  if (status_signal < 0 && sig > 0)
    status_signal = sig;
  if (status_signal == SIGKILL)
    return g_strdup (_("The Python kernel was killed, perhaps because it ran out of memory; its variables are lost."));
  if (status_signal > 0)
    return g_strdup_printf (_("The Python kernel stopped unexpectedly (signal %d); its variables are lost."),
                            (int) status_signal);
  if (exit_code == 125)
    {
      g_autofree char *reason = rk_sandbox_launcher_setup_reason (inst->err_tail->str);
      if (reason != NULL)
        return g_strdup_printf (_("The sandbox could not be set up: %s"), reason);
      return g_strdup (_("The sandbox could not be set up."));
    }
  if (exit_code == 126 || exit_code == 127)
    return g_strdup (_("The Python interpreter could not be run inside the sandbox."));
  if (status_exit < 0)
    status_exit = exit_code;
  return g_strdup_printf (_("The Python kernel exited unexpectedly with status %d; its variables are lost."),
                          (int) status_exit);
}

/* A sandbox that could not start over a full workspace: what fills it is
 * measured in a thread (a workspace may hold many files), then the start
 * and the cells that waited for it fail with that sentence. */
typedef struct
{
  RkWorkspace *workspace;
  guint64      disk_limit;
  GQueue       start_tasks;
  GQueue       cells;
  GStrv        inputs;
} OverDisk;

static void
over_disk_free (gpointer data)
{
  OverDisk *d = data;

  g_clear_object (&d->workspace);
  g_strfreev (d->inputs);
  g_free (d);
}

static void
over_disk_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  OverDisk *d = task_data;
  RkWorkspaceUsage usage;

  rk_workspace_usage_measure (d->workspace, (const char * const *) d->inputs, 200000, &usage);
  g_task_return_pointer (task, rk_workspace_usage_over_disk_message (&usage, d->disk_limit), g_free);
  rk_workspace_usage_clear (&usage);
}

static void
over_disk_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  OverDisk *d = g_task_get_task_data (G_TASK (result));
  g_autofree char *message = g_task_propagate_pointer (G_TASK (result), NULL);
  g_autoptr(GError) error = g_error_new_literal (RK_KERNEL_ERROR, RK_KERNEL_ERROR_LIMIT, message);

  fail_tasks (&d->start_tasks, error);
  fail_tasks (&d->cells, error);
}

static void
explain_over_disk (RkKernel *self)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, over_disk_done_cb, NULL);
  OverDisk *d = g_new0 (OverDisk, 1);

  d->workspace = g_object_ref (self->workspace);
  d->inputs = g_strdupv (self->inputs);
  d->disk_limit = limit_value (self, RK_SANDBOX_LIMIT_DISK);
  d->start_tasks = self->start_tasks;
  d->cells = self->cells;
  g_queue_init (&self->start_tasks);
  g_queue_init (&self->cells);
  g_task_set_task_data (task, d, over_disk_free);
  g_task_run_in_thread (task, over_disk_thread);
}

static void
handle_exit (Instance *inst)
{
  g_autoptr(RkKernel) self = NULL;
  RkSandboxLimit limit = RK_SANDBOX_LIMIT_NONE;
  g_autofree char *message = NULL;
  RkKernelState was;

  if (inst->handled)
    return;
  inst->handled = TRUE;
  g_clear_handle_id (&inst->settle_id, g_source_remove);

  if (inst->kernel == NULL || inst->kernel->inst != inst)
    return;
  /* Its last save is done: what it said before it ended counts. */
  inst->saves_answered = G_MAXUINT64;
  release_held (inst);
  if (inst->kernel == NULL || inst->kernel->inst != inst)
    return;
  self = g_object_ref (inst->kernel);
  was = self->state;
  message = death_message (inst, &limit);
  g_debug ("kernel ended: %s", message);

  instance_ref (inst);
  instance_kill (inst);   /* detaches; the process is already gone */
  g_clear_pointer (&self->ready, rk_kernel_event_unref);
  g_clear_handle_id (&self->start_timeout_id, g_source_remove);

  if (was == RK_KERNEL_STATE_STARTING)
    {
      g_autoptr(GError) error = NULL;
      int code = RK_KERNEL_ERROR_DIED;

      if (limit == RK_SANDBOX_LIMIT_DISK)
        {
          set_state (self, RK_KERNEL_STATE_STOPPED);
          explain_over_disk (self);
          instance_unref (inst);
          return;
        }
      if (limit == RK_SANDBOX_LIMIT_FILES)
        {
          g_free (message);
          message = g_strdup (_("The Python kernel cannot start while the workspace holds more files than allowed; delete some first."));
        }
      if (limit != RK_SANDBOX_LIMIT_NONE)
        code = RK_KERNEL_ERROR_LIMIT;
      else if (g_subprocess_get_if_exited (inst->process) && g_subprocess_get_exit_status (inst->process) == 125)
        code = RK_KERNEL_ERROR_SANDBOX;
      error = g_error_new_literal (RK_KERNEL_ERROR, code, message);

      set_state (self, RK_KERNEL_STATE_STOPPED);
      fail_tasks (&self->start_tasks, error);
      fail_tasks (&self->cells, error);
    }
  else
    {
      set_state (self, RK_KERNEL_STATE_STOPPED);
      g_signal_emit (self, signals[SIGNAL_DIED], 0, limit, message);
      abort_running (self, RK_KERNEL_STATUS_DIED, limit, message);
      pump (self);
    }
  instance_unref (inst);
}

static gboolean
settle_timeout_cb (gpointer user_data)
{
  Instance *inst = user_data;

  inst->settle_id = 0;
  handle_exit (inst);
  return G_SOURCE_REMOVE;
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Instance *inst = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  inst->exited = TRUE;
  if (inst->kernel != NULL && !inst->handled)
    {
      /* Wait briefly for the status line and last stderr words. */
      if (inst->err_eof && inst->status_eof)
        handle_exit (inst);
      else if (inst->settle_id == 0)
        inst->settle_id = g_timeout_add_full (G_PRIORITY_DEFAULT, EXIT_SETTLE_MS, settle_timeout_cb,
                                              instance_ref (inst), (GDestroyNotify) instance_unref);
    }
  instance_unref (inst);
}

static gboolean
start_timeout_cb (gpointer user_data)
{
  RkKernel *self = user_data;

  self->start_timeout_id = 0;
  if (self->inst != NULL && self->state == RK_KERNEL_STATE_STARTING)
    {
      g_free (self->inst->host_reason);
      self->inst->host_reason = g_strdup_printf (_("The Python kernel did not start within %d seconds."),
                                                 START_TIMEOUT_S);
      rk_sandbox_child_kill (self->inst->child);
    }
  return G_SOURCE_REMOVE;
}

/* -- spawning ----------------------------------------------------------- */

/* A close-on-exec pipe with both ends above the numbers the child uses, so
 * that handing them to the launcher never has a source equal to a target. */
/* Moves both ends of @fds to 10 or above (close-on-exec), clear of the
 * numbers the program gets them at; closes both on failure. */
static gboolean
move_high (int      fds[2],
           GError **error)
{
  for (guint i = 0; i < 2; i++)
    {
      int high = fcntl (fds[i], F_DUPFD_CLOEXEC, 10);

      if (high < 0)
        {
          int saved = errno;
          close (fds[0]);
          close (fds[1]);
          fds[0] = fds[1] = -1;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "%s", g_strerror (saved));
          return FALSE;
        }
      close (fds[i]);
      fds[i] = high;
    }
  return TRUE;
}

static gboolean
make_pipe (int      fds[2],
           GError **error)
{
  return g_unix_open_pipe (fds, FD_CLOEXEC, error) && move_high (fds, error);
}

/* A capped workspace's save requests and answers go both ways. */
static gboolean
make_socket_pair (int      fds[2],
                  GError **error)
{
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
      return FALSE;
    }
  return move_high (fds, error);
}

static Instance *
launch (RkKernel  *self,
        GError   **error)
{
  g_autofree char *script = rk_sandbox_launcher_kernel_path (KERNEL_SCRIPT);
  g_autofree char *cell_cpu = NULL;
  const char *setenv[3] = { NULL, };
  const char *argv[] = { rk_python_path (), "-I", "-B", script, NULL };
  RkSandboxSpec spec = { 0, };
  RkSandboxChild *child;
  int req[2] = { -1, -1 }, ev[2] = { -1, -1 }, st[2] = { -1, -1 }, sync[2] = { -1, -1 };
  gboolean capped = rk_sandbox_launcher_has_capped_workspace ();
  Instance *inst;

  if (!make_pipe (req, error) || !make_pipe (ev, error) || !make_pipe (st, error)
      || (capped && !make_socket_pair (sync, error)))
    goto fail;
  with_workspace_fd (self, rk_font_cache_seed);

  spec.workspace = self->workspace;
  self->launched_limits = self->limits;
  spec.memory_bytes = self->limits.memory_bytes;
  spec.cpu_seconds = self->limits.cpu_seconds;
  spec.max_procs = self->limits.max_procs;
  spec.max_file_size = self->limits.max_file_size;
  spec.disk_bytes = self->limits.disk_bytes;
  spec.max_files = self->limits.max_files;
  spec.tmp_size = self->limits.tmp_size;
  if (self->limits.cell_cpu_seconds > 0)
    {
      cell_cpu = g_strdup_printf ("%" G_GUINT64_FORMAT, self->limits.cell_cpu_seconds);
      setenv[0] = "RECKON_CELL_CPU_SECONDS";
      setenv[1] = cell_cpu;
    }
  spec.setenv = setenv;
  spec.inputs = (const char * const *) self->inputs;
  spec.host_fds[0] = req[0];
  spec.child_fds[0] = CHILD_REQUEST_FD;
  spec.host_fds[1] = ev[1];
  spec.child_fds[1] = CHILD_EVENT_FD;
  spec.host_fds[2] = st[1];
  spec.child_fds[2] = CHILD_STATUS_FD;
  spec.n_fds = 3;
  spec.status_fd = CHILD_STATUS_FD;
  /* The disk and file limits held by the kernel itself (a tmpfs of the
   * sandbox's own), where the backend can. */
  if (capped)
    {
      spec.capped_workspace = TRUE;
      spec.host_fds[3] = sync[1];
      spec.child_fds[3] = CHILD_SYNC_FD;
      spec.sync_fd = CHILD_SYNC_FD;
      spec.n_fds = 4;
    }
  spec.flags = G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE;
  spec.argv = argv;
  /* The launcher takes (and closes) the child's ends. */
  req[0] = ev[1] = st[1] = sync[1] = -1;
  child = rk_sandbox_launcher_spawn (&spec, error);
  if (child == NULL)
    goto fail;

  g_unix_set_fd_nonblocking (req[1], TRUE, NULL);

  inst = g_new0 (Instance, 1);
  g_ref_count_init (&inst->ref_count);
  inst->kernel = self;
  inst->child = child;
  inst->process = g_object_ref (rk_sandbox_child_get_process (child));
  inst->cancellable = g_cancellable_new ();
  inst->events = g_unix_input_stream_new (ev[0], TRUE);
  inst->requests = g_unix_output_stream_new (req[1], TRUE);
  inst->status = g_unix_input_stream_new (st[0], TRUE);
  inst->err = g_object_ref (g_subprocess_get_stderr_pipe (inst->process));
  inst->splitter = rk_line_splitter_new (RK_KERNEL_MAX_LINE, RK_LINE_SPLITTER_SKIP_LONG, line_cb, inst);
  inst->err_tail = g_string_new (NULL);
  inst->status_text = g_string_new (NULL);
  inst->sync_fd = sync[0];
  if (capped)
    {
      inst->sync_in = g_unix_input_stream_new (sync[0], FALSE);
      inst->sync_splitter = rk_line_splitter_new (SYNC_MAX_LINE, RK_LINE_SPLITTER_SKIP_LONG, sync_line_cb, inst);
    }
  return inst;

fail:
  for (guint i = 0; i < 2; i++)
    {
      if (req[i] >= 0) close (req[i]);
      if (ev[i] >= 0) close (ev[i]);
      if (st[i] >= 0) close (st[i]);
      if (sync[i] >= 0) close (sync[i]);
    }
  return NULL;
}

static void
spawn_instance (RkKernel *self)
{
  g_autoptr(GError) error = NULL;
  Instance *inst;

  g_assert (self->inst == NULL);

  inst = launch (self, &error);
  if (inst == NULL)
    {
      /* No backend: the launcher's one sentence says why, as it is. */
      g_autoptr(GError) user_error =
        g_error_matches (error, RK_SANDBOX_LAUNCHER_ERROR, RK_SANDBOX_LAUNCHER_ERROR_NO_BACKEND)
        ? g_error_new_literal (RK_KERNEL_ERROR, RK_KERNEL_ERROR_SANDBOX, error->message)
        : g_error_new (RK_KERNEL_ERROR, RK_KERNEL_ERROR_SPAWN,
                       _("The Python sandbox could not be started: %s"), error->message);
      set_state (self, RK_KERNEL_STATE_STOPPED);
      fail_tasks (&self->start_tasks, user_error);
      fail_tasks (&self->cells, user_error);
      return;
    }

  self->inst = inst;
  set_state (self, RK_KERNEL_STATE_STARTING);
  self->start_timeout_id = g_timeout_add_seconds (START_TIMEOUT_S, start_timeout_cb, self);

  g_input_stream_read_bytes_async (inst->events, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   inst->cancellable, events_read_cb, instance_ref (inst));
  g_input_stream_read_bytes_async (inst->err, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   inst->cancellable, tail_read_cb, instance_ref (inst));
  g_input_stream_read_bytes_async (inst->status, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   inst->cancellable, tail_read_cb, instance_ref (inst));
  g_subprocess_wait_async (inst->process, NULL, wait_cb, instance_ref (inst));
  if (inst->sync_in != NULL)
    g_input_stream_read_bytes_async (inst->sync_in, 4096, G_PRIORITY_DEFAULT,
                                     inst->cancellable, sync_read_cb, instance_ref (inst));
}

/* -- running cells ------------------------------------------------------ */

typedef struct
{
  Instance *inst;
  GBytes   *request;     /* the stream reads from it until the write ends */
} Write;

static void
request_written_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Write *pending = user_data;
  g_autoptr(GError) error = NULL;

  /* A failed write means the kernel is gone; its exit is reported. */
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    g_debug ("could not send a request to the kernel: %s", error->message);
  instance_unref (pending->inst);
  g_bytes_unref (pending->request);
  g_free (pending);
}

static GBytes *
execute_request (Cell *cell)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  char *text;
  gsize len;

  json_builder_begin_object (builder);
  rk_json_add_string_member (builder, "type", "execute");
  rk_json_add_string_member (builder, "id", cell->id);
  rk_json_add_string_member (builder, "code", cell->code);
  rk_json_add_string_member (builder, "nonce", cell->nonce);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, &len);
  text = g_realloc (text, len + 2);
  text[len] = '\n';
  text[len + 1] = '\0';
  return g_bytes_new_take (text, len + 1);
}

static gboolean
cell_time_cb (gpointer user_data)
{
  RkKernel *self = user_data;

  self->cell_time_id = 0;
  if (self->running == NULL)
    return G_SOURCE_REMOVE;
  g_debug ("cell over its time limit of %" G_GUINT64_FORMAT " s: interrupting", cell_time_limit (self));
  self->cell_timed_out = TRUE;
  rk_kernel_interrupt (self);
  return G_SOURCE_REMOVE;
}

static void
pump (RkKernel *self)
{
  Write *pending;
  GTask *task;
  Cell *cell;

  if (self->running != NULL || g_queue_is_empty (&self->cells))
    return;
  if (self->state == RK_KERNEL_STATE_STOPPED)
    {
      spawn_instance (self);
      return;
    }
  if (self->state != RK_KERNEL_STATE_IDLE || self->inst == NULL)
    return;

  task = g_queue_pop_head (&self->cells);
  cell = g_task_get_task_data (task);
  self->running = task;
  self->cell_stream_bytes = 0;
  self->cell_artifacts = 0;
  make_nonce (cell->nonce);
  self->cell_timed_out = FALSE;
  self->cell_time_id = g_timeout_add_seconds ((guint) MIN (cell_time_limit (self), G_MAXUINT / 1000),
                                              cell_time_cb, self);
  set_state (self, RK_KERNEL_STATE_BUSY);

  pending = g_new0 (Write, 1);
  pending->inst = instance_ref (self->inst);
  pending->request = execute_request (cell);
  g_output_stream_write_all_async (self->inst->requests,
                                   g_bytes_get_data (pending->request, NULL),
                                   g_bytes_get_size (pending->request),
                                   G_PRIORITY_DEFAULT, self->inst->cancellable,
                                   request_written_cb, pending);
}

static gboolean
cell_cancelled_idle (gpointer user_data)
{
  GTask *task = user_data;
  RkKernel *self = g_task_get_source_object (task);

  if (self->running == task)
    rk_kernel_interrupt (self);
  else if (g_queue_remove (&self->cells, task))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The cell was cancelled."));
      g_object_unref (task);
    }
  return G_SOURCE_REMOVE;
}

static void
cell_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;

  g_idle_add_full (G_PRIORITY_DEFAULT, cell_cancelled_idle, g_object_ref (task), g_object_unref);
}

void
rk_kernel_execute_async (RkKernel            *self,
                         const char          *code,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Cell *cell;

  g_return_if_fail (RK_IS_KERNEL (self));
  g_return_if_fail (code != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_kernel_execute_async);

  if (!g_utf8_validate (code, -1, NULL))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("The code is not valid UTF-8 text."));
      return;
    }

  cell = g_new0 (Cell, 1);
  cell->id = g_strdup_printf ("c%" G_GUINT64_FORMAT, ++self->next_cell);
  cell->code = g_strdup (code);
  g_task_set_task_data (task, cell, (GDestroyNotify) cell_free);
  if (cancellable != NULL)
    {
      cell->cancellable = g_object_ref (cancellable);
      cell->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (cell_cancelled_cb), task, NULL);
    }

  g_queue_push_tail (&self->cells, g_steal_pointer (&task));
  pump (self);
}

RkKernelEvent *
rk_kernel_execute_finish (RkKernel      *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* -- interrupt, start, restart, shutdown -------------------------------- */

static gboolean
interrupt_timeout_cb (gpointer user_data)
{
  RkKernel *self = user_data;

  self->interrupt_id = 0;
  if (self->running == NULL || self->inst == NULL)
    return G_SOURCE_REMOVE;

  /* The cell ignored SIGINT (C code, a handler of its own): restart. */
  g_object_ref (self);
  instance_kill (self->inst);
  g_clear_pointer (&self->ready, rk_kernel_event_unref);
  set_state (self, RK_KERNEL_STATE_STOPPED);
  if (self->cell_timed_out)
    {
      g_autofree char *limit_text = time_limit_message (self);
      g_autofree char *message = g_strdup_printf ("%s %s", limit_text,
                                                  _("It did not stop when interrupted, so the kernel was restarted and its variables are lost."));
      abort_running (self, RK_KERNEL_STATUS_ERROR, RK_SANDBOX_LIMIT_TIME, message);
    }
  else
    abort_running (self, RK_KERNEL_STATUS_INTERRUPTED, RK_SANDBOX_LIMIT_NONE,
                   _("The cell did not stop when interrupted, so the kernel was restarted and its variables are lost."));
  if (self->inst == NULL && self->state == RK_KERNEL_STATE_STOPPED)
    spawn_instance (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

void
rk_kernel_interrupt (RkKernel *self)
{
  g_return_if_fail (RK_IS_KERNEL (self));

  if (self->running == NULL || self->inst == NULL || self->state != RK_KERNEL_STATE_BUSY)
    return;
  rk_sandbox_child_send_signal (self->inst->child, SIGINT);
  if (self->interrupt_id == 0)
    self->interrupt_id = g_timeout_add (INTERRUPT_GRACE_MS, interrupt_timeout_cb, self);
}

void
rk_kernel_start_async (RkKernel            *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RK_IS_KERNEL (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_kernel_start_async);

  if (self->state == RK_KERNEL_STATE_IDLE || self->state == RK_KERNEL_STATE_BUSY)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_queue_push_tail (&self->start_tasks, g_steal_pointer (&task));
  if (self->state == RK_KERNEL_STATE_STOPPED)
    spawn_instance (self);
}

gboolean
rk_kernel_start_finish (RkKernel      *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
rk_kernel_restart_async (RkKernel            *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_return_if_fail (RK_IS_KERNEL (self));

  g_object_ref (self);
  if (self->inst != NULL)
    {
      g_clear_handle_id (&self->start_timeout_id, g_source_remove);
      instance_kill (self->inst);
      g_clear_pointer (&self->ready, rk_kernel_event_unref);
      set_state (self, RK_KERNEL_STATE_STOPPED);
      abort_running (self, RK_KERNEL_STATUS_DIED, RK_SANDBOX_LIMIT_NONE,
                     _("The kernel was restarted before the cell finished."));
    }
  /* Queued cells wait for the fresh kernel. */
  rk_kernel_start_async (self, cancellable, callback, user_data);
  g_object_unref (self);
}

gboolean
rk_kernel_restart_finish (RkKernel      *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  return rk_kernel_start_finish (self, result, error);
}

static gboolean
kill_later_cb (gpointer user_data)
{
  rk_sandbox_child_kill (user_data);
  return G_SOURCE_REMOVE;
}

void
rk_kernel_shutdown (RkKernel *self)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                 _("The kernel was shut down."));
  Instance *inst;

  g_return_if_fail (RK_IS_KERNEL (self));

  g_object_ref (self);
  g_clear_handle_id (&self->start_timeout_id, g_source_remove);
  g_clear_handle_id (&self->interrupt_id, g_source_remove);
  inst = g_steal_pointer (&self->inst);
  if (inst != NULL)
    {
      static const char request[] = "{\"type\":\"shutdown\"}\n";

      inst->kernel = NULL;
      g_cancellable_cancel (inst->cancellable);
      /* A capped workspace is ended at once: every cell's files were saved
       * when it ended, a kernel that exited would save once more (PID-1
       * may see the exit before it sees the closed socket), and the
       * workspace may be deleted the moment we return. */
      if (inst->sync_fd >= 0)
        {
          shutdown (inst->sync_fd, SHUT_WR);
          rk_sandbox_child_kill (inst->child);
        }
      /* Best effort, never blocking: the kill below settles it anyway. */
      else if (g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (inst->requests),
                                                      request, sizeof request - 1, NULL, NULL) > 0)
        g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, SHUTDOWN_GRACE_S, kill_later_cb,
                                    g_steal_pointer (&inst->child), (GDestroyNotify) rk_sandbox_child_free);
      else
        rk_sandbox_child_kill (inst->child);
      instance_unref (inst);
    }
  g_clear_pointer (&self->ready, rk_kernel_event_unref);
  set_state (self, RK_KERNEL_STATE_STOPPED);
  if (self->running != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->running);
      g_task_return_error (task, g_error_copy (error));
    }
  fail_tasks (&self->cells, error);
  fail_tasks (&self->start_tasks, error);
  g_object_unref (self);
}

void
rk_kernel_take_incoming_async (RkKernel            *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (RK_IS_KERNEL (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_kernel_take_incoming_async);
  if (self->inst != NULL && self->inst->sync_fd >= 0)
    {
      if (sync_ask (self->inst, 'l'))
        g_queue_push_tail (&self->inst->takes, g_steal_pointer (&task));
      else
        g_task_return_new_error (task, RK_KERNEL_ERROR, RK_KERNEL_ERROR_DIED, "%s",
                                 _("The Python kernel stopped before the file reached it; add the file again."));
      return;
    }
  /* No sandbox holds a copy of the workspace. */
  if (rk_import_place_staged (self->workspace, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

gboolean
rk_kernel_take_incoming_finish (RkKernel      *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* -- object ------------------------------------------------------------- */

RkWorkspace *
rk_kernel_get_workspace (RkKernel *self)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), NULL);
  return self->workspace;
}

RkKernelState
rk_kernel_get_state (RkKernel *self)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), RK_KERNEL_STATE_STOPPED);
  return self->state;
}

RkKernelEvent *
rk_kernel_get_ready_event (RkKernel *self)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), NULL);
  return self->ready;
}

const char *
rk_kernel_get_running_cell (RkKernel *self)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), NULL);
  if (self->running == NULL)
    return NULL;
  return ((Cell *) g_task_get_task_data (self->running))->id;
}

void
rk_kernel_set_cell_time_limit (RkKernel *self,
                               guint64   seconds)
{
  g_return_if_fail (RK_IS_KERNEL (self));
  self->limits.cell_time_seconds = seconds;
}

void
rk_kernel_set_limits (RkKernel             *self,
                      const RkKernelLimits *limits)
{
  g_return_if_fail (RK_IS_KERNEL (self));
  g_return_if_fail (limits != NULL);

  /* launch() reads them: they hold from the next sandbox on. */
  self->limits = *limits;
}

void
rk_kernel_get_limits (RkKernel       *self,
                      RkKernelLimits *limits)
{
  g_return_if_fail (RK_IS_KERNEL (self));
  g_return_if_fail (limits != NULL);

  *limits = self->limits;
}

guint64
rk_kernel_get_cell_time_limit (RkKernel *self)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), 0);
  return cell_time_limit (self);
}

void
rk_kernel_set_inputs (RkKernel           *self,
                      const char * const *names)
{
  g_return_if_fail (RK_IS_KERNEL (self));
  g_strfreev (self->inputs);
  self->inputs = g_strdupv ((char **) names);
}

guint
rk_kernel_get_n_protocol_errors (RkKernel *self)
{
  g_return_val_if_fail (RK_IS_KERNEL (self), 0);
  return self->n_protocol_errors;
}

static void
rk_kernel_dispose (GObject *object)
{
  RkKernel *self = RK_KERNEL (object);

  /* Tasks hold the kernel alive, so none can be pending here; the sandbox
   * is killed at once. */
  g_clear_handle_id (&self->start_timeout_id, g_source_remove);
  g_clear_handle_id (&self->interrupt_id, g_source_remove);
  g_clear_handle_id (&self->cell_time_id, g_source_remove);
  if (self->inst != NULL)
    instance_kill (self->inst);
  g_clear_pointer (&self->ready, rk_kernel_event_unref);

  G_OBJECT_CLASS (rk_kernel_parent_class)->dispose (object);
}

static void
rk_kernel_finalize (GObject *object)
{
  RkKernel *self = RK_KERNEL (object);

  g_clear_object (&self->workspace);
  g_strfreev (self->inputs);

  G_OBJECT_CLASS (rk_kernel_parent_class)->finalize (object);
}

static void
rk_kernel_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  RkKernel *self = RK_KERNEL (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_kernel_class_init (RkKernelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rk_kernel_dispose;
  object_class->finalize = rk_kernel_finalize;
  object_class->get_property = rk_kernel_get_property;

  /**
   * RkKernel:state: (attributes org.gtk.Property.get=rk_kernel_get_state)
   *
   * What the kernel is doing: stopped, starting, idle or running a cell.
   *
   * Notified on every change, before the "state-changed" signal, so a
   * window can bind a status label or a spinner to it.
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       RK_TYPE_KERNEL_STATE, RK_KERNEL_STATE_STOPPED,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, RK_TYPE_KERNEL_EVENT | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_STATE_CHANGED] =
    g_signal_new ("state-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_INT);
  signals[SIGNAL_DIED] =
    g_signal_new ("died", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, RK_TYPE_SANDBOX_LIMIT, G_TYPE_STRING);
  signals[SIGNAL_PROTOCOL_ERROR] =
    g_signal_new ("protocol-error", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
rk_kernel_init (RkKernel *self)
{
  g_queue_init (&self->start_tasks);
  g_queue_init (&self->cells);
}

RkKernel *
rk_kernel_new (RkWorkspace          *workspace,
               const RkKernelLimits *limits)
{
  RkKernel *self;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), NULL);

  self = g_object_new (RK_TYPE_KERNEL, NULL);
  self->workspace = g_object_ref (workspace);
  if (limits != NULL)
    self->limits = *limits;
  return self;
}
