/* rk-transcript-export.c — a transcript as a Jupyter notebook (nbformat 4.5)
 * and as a self-contained HTML report, with figures read from the workspace. */
#define G_LOG_DOMAIN "rk-transcript"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "rk-diff.h"
#include "rk-transcript.h"
#include "rk-util.h"

/* One figure embeds at most this much; all of them together at most this. */
#define MAX_IMAGE        (16u << 20)
#define MAX_ALL_IMAGES   (128u << 20)

/* Reads @rel beneath @workspace without following any symlink and only if it
 * is a regular file of at most @max bytes. */
static GBytes *
read_workspace_file (const char *workspace,
                     const char *rel,
                     gsize       max)
{
  g_auto(GStrv) parts = NULL;
  int dir, fd = -1;
  struct stat st;
  char *buf;
  gsize got = 0;

  if (workspace == NULL || !rk_path_is_beneath (rel))
    return NULL;
  dir = open (workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return NULL;
  parts = g_strsplit (rel, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      gboolean last = parts[i + 1] == NULL;
      int next = openat (dir, parts[i], (last ? O_RDONLY | O_NONBLOCK : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC);

      close (dir);
      dir = -1;
      if (next < 0)
        return NULL;
      if (last)
        fd = next;
      else
        dir = next;
    }
  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < 0 || (guint64) st.st_size > max)
    {
      close (fd);
      return NULL;
    }
  buf = g_malloc (st.st_size + 1);
  while (got < (gsize) st.st_size)
    {
      ssize_t r = read (fd, buf + got, st.st_size - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += r;
    }
  close (fd);
  return g_bytes_new_take (buf, got);
}

static gboolean
is_png (GBytes *bytes)
{
  gsize len;
  const guchar *d = g_bytes_get_data (bytes, &len);
  return len >= 8 && memcmp (d, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static gboolean
is_svg_mime (const char *mime)
{
  return g_strcmp0 (mime, "image/svg+xml") == 0;
}

/* The code that ran for a cell, and whether it ran, from its approval. */
typedef struct
{
  GString   *source;
  gboolean   is_code;
  gboolean   skipped;
  gint64     execution_count;
  JsonArray *outputs;
  char      *id;
} Cell;

static void
cell_free (Cell *c)
{
  g_string_free (c->source, TRUE);
  g_clear_pointer (&c->outputs, json_array_unref);
  g_free (c->id);
  g_free (c);
}

static Cell *
cell_new (GPtrArray  *cells,
          gboolean    is_code,
          guint       entry_id)
{
  Cell *c = g_new0 (Cell, 1);

  c->source = g_string_new (NULL);
  c->is_code = is_code;
  c->outputs = json_array_new ();
  c->execution_count = -1;
  c->id = g_strdup_printf ("rk-%u", entry_id);
  g_ptr_array_add (cells, c);
  return c;
}

static JsonObject *
output_new (const char *type)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "output_type", type);
  return o;
}

static void
add_display_text (Cell       *cell,
                  const char *text)
{
  JsonObject *o = output_new ("display_data");
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "text/plain", text);
  json_object_set_object_member (o, "data", data);
  json_object_set_object_member (o, "metadata", json_object_new ());
  json_array_add_object_element (cell->outputs, o);
}

static char *
artifact_label (RkTranscriptEntry *e)
{
  const char *title = rk_transcript_entry_get_title (e);
  const char *path = rk_transcript_entry_get_path (e);

  switch (rk_transcript_entry_get_kind (e))
    {
    case RK_ENTRY_TABLE:
      return g_strdup_printf (_("Table %s (%" G_GINT64_FORMAT " rows × %" G_GINT64_FORMAT " columns): %s"),
                              title ? title : "", rk_transcript_entry_get_rows (e),
                              rk_transcript_entry_get_columns (e), path);
    case RK_ENTRY_FIGURE:
      return g_strdup_printf (_("Figure %s: %s"), title ? title : "", path);
    case RK_ENTRY_CHART:
      return g_strdup_printf (_("Chart %s: %s"), title ? title : "", path);
    default:
      return g_strdup_printf (_("File %s: %s"), title ? title : "", path);
    }
}

static char *
user_markdown (RkTranscriptEntry *e)
{
  GString *s = g_string_new ("**");
  const char * const *att = rk_transcript_entry_get_attachments (e);

  g_string_append (s, _("Question"));
  g_string_append (s, ":** ");
  g_string_append (s, rk_transcript_entry_get_text (e));
  if (att != NULL && att[0] != NULL)
    {
      g_string_append (s, "\n\n*");
      g_string_append (s, _("Files"));
      g_string_append (s, ":* ");
      for (guint i = 0; att[i]; i++)
        {
          if (i)
            g_string_append (s, ", ");
          g_string_append (s, att[i]);
        }
    }
  return g_string_free (s, FALSE);
}

char *
rk_transcript_to_notebook (RkTranscript  *self,
                           const char    *workspace,
                           GError       **error)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func ((GDestroyNotify) cell_free);
  g_autoptr(GHashTable) by_cell = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonGenerator) gen = NULL;
  JsonObject *nb, *meta, *ks, *li;
  JsonArray *jcells;
  gint64 execution_count = 0;
  gsize image_budget = MAX_ALL_IMAGES;
  guint n;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  n = rk_transcript_get_n_entries (self);
  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (self, i);
      const char *cell_id = rk_transcript_entry_get_cell_id (e);
      const char *text = rk_transcript_entry_get_text (e);
      Cell *cell = cell_id ? g_hash_table_lookup (by_cell, cell_id) : NULL;
      RkEntryKind kind = rk_transcript_entry_get_kind (e);

      if (kind != RK_ENTRY_CODE && kind != RK_ENTRY_USER && kind != RK_ENTRY_ASSISTANT &&
          kind != RK_ENTRY_ANSWER && kind != RK_ENTRY_NOTE && kind != RK_ENTRY_REASONING &&
          kind != RK_ENTRY_APPROVAL && kind != RK_ENTRY_ATTACHMENT && cell == NULL)
        {
          /* Output of a cell we never saw: give it an empty code cell. */
          cell = cell_new (cells, TRUE, rk_transcript_entry_get_id (e));
          if (cell_id)
            g_hash_table_insert (by_cell, g_strdup (cell_id), cell);
        }

      switch (kind)
        {
        case RK_ENTRY_USER:
          {
            g_autofree char *md = user_markdown (e);
            g_string_append (cell_new (cells, FALSE, rk_transcript_entry_get_id (e))->source, md);
          }
          break;
        case RK_ENTRY_ASSISTANT:
        case RK_ENTRY_ANSWER:
          if (*text)
            g_string_append (cell_new (cells, FALSE, rk_transcript_entry_get_id (e))->source, text);
          break;
        case RK_ENTRY_NOTE:
          g_string_append_printf (cell_new (cells, FALSE, rk_transcript_entry_get_id (e))->source, "> *%s*", text);
          break;
        case RK_ENTRY_ATTACHMENT:
          /* One short line; the file itself is not embedded. */
          g_string_append_printf (cell_new (cells, FALSE, rk_transcript_entry_get_id (e))->source,
                                  _("*File added:* `%s`"), rk_transcript_entry_get_name (e));
          break;
        case RK_ENTRY_REASONING:
          break;
        case RK_ENTRY_CODE:
          cell = cell_new (cells, TRUE, rk_transcript_entry_get_id (e));
          g_string_append (cell->source, text);
          if (cell_id)
            g_hash_table_replace (by_cell, g_strdup (cell_id), cell);
          break;
        case RK_ENTRY_APPROVAL:
          if (cell == NULL)
            break;
          switch (rk_transcript_entry_get_decision (e))
            {
            case RK_DECISION_EDITED:
              g_string_assign (cell->source, text);
              cell->execution_count = ++execution_count;
              break;
            case RK_DECISION_APPROVED:
            case RK_DECISION_AUTO:
              cell->execution_count = ++execution_count;
              break;
            case RK_DECISION_SKIPPED:
              cell->skipped = TRUE;
              break;
            case RK_DECISION_NONE:
            default:
              break;
            }
          break;
        case RK_ENTRY_STREAM:
          {
            const char *name = rk_transcript_entry_get_stream (e) == RK_STREAM_STDERR ? "stderr" : "stdout";
            guint nout = json_array_get_length (cell->outputs);
            JsonObject *prev = nout ? json_array_get_object_element (cell->outputs, nout - 1) : NULL;

            if (prev && g_str_equal (json_object_get_string_member (prev, "output_type"), "stream") &&
                g_str_equal (json_object_get_string_member (prev, "name"), name))
              {
                g_autofree char *joined = g_strconcat (json_object_get_string_member (prev, "text"), text, NULL);
                json_object_set_string_member (prev, "text", joined);
              }
            else
              {
                JsonObject *o = output_new ("stream");
                json_object_set_string_member (o, "name", name);
                json_object_set_string_member (o, "text", text);
                json_array_add_object_element (cell->outputs, o);
              }
          }
          break;
        case RK_ENTRY_RESULT:
          {
            JsonObject *o = output_new ("execute_result");
            JsonObject *data = json_object_new ();

            if (cell->execution_count < 0)
              cell->execution_count = ++execution_count;
            json_object_set_int_member (o, "execution_count", cell->execution_count);
            json_object_set_string_member (data, "text/plain", text);
            json_object_set_object_member (o, "data", data);
            json_object_set_object_member (o, "metadata", json_object_new ());
            json_array_add_object_element (cell->outputs, o);
          }
          break;
        case RK_ENTRY_FIGURE:
          {
            const char *mime = rk_transcript_entry_get_mime_type (e);
            g_autoptr(GBytes) bytes = read_workspace_file (workspace, rk_transcript_entry_get_path (e),
                                                           MIN (MAX_IMAGE, image_budget));
            g_autofree char *label = artifact_label (e);

            if (bytes != NULL && is_png (bytes))
              {
                JsonObject *o = output_new ("display_data");
                JsonObject *data = json_object_new ();
                JsonObject *md = json_object_new ();
                g_autofree char *b64 = g_base64_encode (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

                image_budget -= g_bytes_get_size (bytes);
                json_object_set_string_member (data, "image/png", b64);
                json_object_set_string_member (data, "text/plain", label);
                if (rk_transcript_entry_get_width (e) > 0 && rk_transcript_entry_get_height (e) > 0)
                  {
                    JsonObject *size = json_object_new ();
                    json_object_set_int_member (size, "width", rk_transcript_entry_get_width (e));
                    json_object_set_int_member (size, "height", rk_transcript_entry_get_height (e));
                    json_object_set_object_member (md, "image/png", size);
                  }
                json_object_set_object_member (o, "data", data);
                json_object_set_object_member (o, "metadata", md);
                json_array_add_object_element (cell->outputs, o);
              }
            else if (bytes != NULL && is_svg_mime (mime) &&
                     g_utf8_validate_len (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL))
              {
                JsonObject *o = output_new ("display_data");
                JsonObject *data = json_object_new ();
                g_autofree char *svg = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

                image_budget -= g_bytes_get_size (bytes);
                json_object_set_string_member (data, "image/svg+xml", svg);
                json_object_set_string_member (data, "text/plain", label);
                json_object_set_object_member (o, "data", data);
                json_object_set_object_member (o, "metadata", json_object_new ());
                json_array_add_object_element (cell->outputs, o);
              }
            else
              add_display_text (cell, label);
          }
          break;
        case RK_ENTRY_TABLE:
        case RK_ENTRY_CHART:
        case RK_ENTRY_FILE:
          {
            g_autofree char *label = artifact_label (e);
            add_display_text (cell, label);
          }
          break;
        case RK_ENTRY_ERROR:
          {
            JsonObject *o = output_new ("error");
            JsonArray *tb = json_array_new ();
            const char *detail = rk_transcript_entry_get_detail (e);
            const char *name = rk_transcript_entry_get_name (e);

            json_object_set_string_member (o, "ename", name ? name : "Error");
            json_object_set_string_member (o, "evalue", text);
            if (detail != NULL)
              {
                g_auto(GStrv) lines = g_strsplit (detail, "\n", 10000);
                for (guint k = 0; lines[k]; k++)
                  json_array_add_string_element (tb, lines[k]);
              }
            json_object_set_array_member (o, "traceback", tb);
            json_array_add_object_element (cell->outputs, o);
          }
          break;
        default:
          break;
        }
    }

  jcells = json_array_new ();
  for (guint i = 0; i < cells->len; i++)
    {
      Cell *c = cells->pdata[i];
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "id", c->id);
      json_object_set_object_member (o, "metadata", json_object_new ());
      if (c->is_code && !c->skipped)
        {
          json_object_set_string_member (o, "cell_type", "code");
          json_object_set_string_member (o, "source", c->source->str);
          if (c->execution_count >= 0)
            json_object_set_int_member (o, "execution_count", c->execution_count);
          else
            json_object_set_null_member (o, "execution_count");
          json_object_set_array_member (o, "outputs", json_array_ref (c->outputs));
        }
      else if (c->is_code)
        {
          /* Skipped code must not run when the notebook is run: show it only. */
          g_autofree char *md = g_strdup_printf ("*%s*\n\n```python\n%s\n```", _("Skipped"), c->source->str);
          json_object_set_string_member (o, "cell_type", "markdown");
          json_object_set_string_member (o, "source", md);
        }
      else
        {
          json_object_set_string_member (o, "cell_type", "markdown");
          json_object_set_string_member (o, "source", c->source->str);
        }
      json_array_add_object_element (jcells, o);
    }

  nb = json_object_new ();
  meta = json_object_new ();
  ks = json_object_new ();
  li = json_object_new ();
  json_object_set_string_member (ks, "name", "python3");
  json_object_set_string_member (ks, "display_name", "Python 3");
  json_object_set_string_member (ks, "language", "python");
  json_object_set_string_member (li, "name", "python");
  json_object_set_object_member (meta, "kernelspec", ks);
  json_object_set_object_member (meta, "language_info", li);
  json_object_set_int_member (nb, "nbformat", 4);
  json_object_set_int_member (nb, "nbformat_minor", 5);
  json_object_set_object_member (nb, "metadata", meta);
  json_object_set_array_member (nb, "cells", jcells);

  root = json_node_init_object (json_node_alloc (), nb);
  json_object_unref (nb);
  gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 1);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

/* ---- HTML ---- */

static void
append_escaped (GString    *s,
                const char *text)
{
  g_autofree char *esc = g_markup_escape_text (text ? text : "", -1);
  g_string_append (s, esc);
}

static void
append_block (GString    *s,
              const char *cls,
              const char *label,
              const char *text,
              gboolean    pre)
{
  g_string_append_printf (s, "<section class=\"%s\">", cls);
  if (label)
    {
      g_string_append (s, "<h2>");
      append_escaped (s, label);
      g_string_append (s, "</h2>");
    }
  g_string_append (s, pre ? "<pre>" : "<div class=\"prose\">");
  append_escaped (s, text);
  g_string_append (s, pre ? "</pre>" : "</div>");
  g_string_append (s, "</section>\n");
}

static const char html_head[] =
  "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
  /* Inert: nothing from the transcript can load or run anything. */
  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n"
  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
  "<style>\n"
  "body{font-family:Cantarell,'Noto Sans',sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#241f31;background:#fff}\n"
  "h1{font-size:1.6rem} h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#77767b;margin:0 0 .3rem}\n"
  "section{margin:1rem 0;padding:.6rem .8rem;border-radius:8px}\n"
  ".user{background:#e8f0fb} .answer{background:#e9f7ef;border-left:4px solid #26a269}\n"
  ".prose{white-space:pre-wrap} pre{white-space:pre-wrap;word-break:break-word;margin:0;font-family:'Source Code Pro',monospace;font-size:.9rem}\n"
  ".code pre{background:#f6f5f4;padding:.6rem;border-radius:6px} .stderr pre,.error pre{color:#c01c28}\n"
  ".note{color:#77767b;font-style:italic} .reasoning{color:#5e5c64} img{max-width:100%}\n"
  "details summary{cursor:pointer;color:#77767b}\n"
  "@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#deddda}.user{background:#1c2a3d}.answer{background:#1d3326}.code pre{background:#2a2a2a}}\n"
  "</style>\n";

char *
rk_transcript_to_html (RkTranscript  *self,
                       const char    *workspace,
                       const char    *title,
                       GError       **error)
{
  GString *s;
  gsize image_budget = MAX_ALL_IMAGES;
  guint n;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  if (title == NULL)
    title = _("Reckon report");
  s = g_string_new (html_head);
  g_string_append (s, "<title>");
  append_escaped (s, title);
  g_string_append (s, "</title>\n</head>\n<body>\n<h1>");
  append_escaped (s, title);
  g_string_append (s, "</h1>\n");

  n = rk_transcript_get_n_entries (self);
  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (self, i);
      const char *text = rk_transcript_entry_get_text (e);

      switch (rk_transcript_entry_get_kind (e))
        {
        case RK_ENTRY_USER:
          {
            const char * const *att = rk_transcript_entry_get_attachments (e);
            g_autoptr(GString) t = g_string_new (text);

            if (att && att[0])
              {
                g_autofree char *files = g_strjoinv (", ", (char **) att);
                g_string_append_printf (t, "\n\n%s: %s", _("Files"), files);
              }
            append_block (s, "user", _("Question"), t->str, FALSE);
          }
          break;
        case RK_ENTRY_ASSISTANT:
          if (*text)
            append_block (s, "assistant", NULL, text, FALSE);
          break;
        case RK_ENTRY_REASONING:
          g_string_append (s, "<section class=\"reasoning\"><details><summary>");
          append_escaped (s, _("Reasoning"));
          g_string_append (s, "</summary><div class=\"prose\">");
          append_escaped (s, text);
          g_string_append (s, "</div></details></section>\n");
          break;
        case RK_ENTRY_CODE:
          append_block (s, "code", _("Code"), text, TRUE);
          if (rk_transcript_entry_get_previous_code (e) != NULL)
            {
              g_autofree char *diff = rk_diff_unified (rk_transcript_entry_get_previous_code (e), text,
                                                       _("before"), _("after"), 3);
              g_string_append (s, "<section class=\"code\"><details><summary>");
              append_escaped (s, _("Changes from the previous version"));
              g_string_append (s, "</summary><pre>");
              append_escaped (s, diff);
              g_string_append (s, "</pre></details></section>\n");
            }
          break;
        case RK_ENTRY_APPROVAL:
          {
            const char *what;
            switch (rk_transcript_entry_get_decision (e))
              {
              case RK_DECISION_EDITED: what = _("Edited and run"); break;
              case RK_DECISION_SKIPPED: what = _("Skipped"); break;
              case RK_DECISION_AUTO: what = _("Run automatically"); break;
              case RK_DECISION_APPROVED: what = _("Run"); break;
              case RK_DECISION_NONE:
              default: what = NULL; break;
              }
            if (what)
              append_block (s, "note", NULL, what, FALSE);
            if (rk_transcript_entry_get_decision (e) == RK_DECISION_EDITED)
              append_block (s, "code", _("Code as edited"), text, TRUE);
          }
          break;
        case RK_ENTRY_STREAM:
          append_block (s, rk_transcript_entry_get_stream (e) == RK_STREAM_STDERR ? "stderr" : "stdout",
                        NULL, text, TRUE);
          break;
        case RK_ENTRY_RESULT:
          append_block (s, "result", NULL, text, TRUE);
          break;
        case RK_ENTRY_FIGURE:
          {
            g_autoptr(GBytes) bytes = read_workspace_file (workspace, rk_transcript_entry_get_path (e),
                                                           MIN (MAX_IMAGE, image_budget));
            g_autofree char *label = artifact_label (e);

            if (bytes != NULL && is_png (bytes))
              {
                g_autofree char *b64 = g_base64_encode (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
                image_budget -= g_bytes_get_size (bytes);
                g_string_append (s, "<section class=\"figure\"><img alt=\"");
                append_escaped (s, label);
                g_string_append (s, "\" src=\"data:image/png;base64,");
                g_string_append (s, b64);
                g_string_append (s, "\"></section>\n");
              }
            else
              append_block (s, "note", NULL, label, FALSE);
          }
          break;
        case RK_ENTRY_TABLE:
        case RK_ENTRY_CHART:
        case RK_ENTRY_FILE:
          {
            g_autofree char *label = artifact_label (e);
            append_block (s, "note", NULL, label, FALSE);
          }
          break;
        case RK_ENTRY_ERROR:
          {
            const char *name = rk_transcript_entry_get_name (e);
            const char *detail = rk_transcript_entry_get_detail (e);
            g_autofree char *msg = g_strdup_printf ("%s%s%s", name ? name : "", name ? ": " : "", text);

            append_block (s, "error", _("Error"), msg, TRUE);
            if (detail && *detail)
              {
                g_string_append (s, "<section class=\"error\"><details><summary>");
                append_escaped (s, _("Traceback"));
                g_string_append (s, "</summary><pre>");
                append_escaped (s, detail);
                g_string_append (s, "</pre></details></section>\n");
              }
          }
          break;
        case RK_ENTRY_ANSWER:
          append_block (s, "answer", _("Answer"), text, FALSE);
          break;
        case RK_ENTRY_ATTACHMENT:
          {
            g_autofree char *line = g_strdup_printf (_("File added: %s"), rk_transcript_entry_get_title (e));
            append_block (s, "note", NULL, line, FALSE);
          }
          break;
        case RK_ENTRY_NOTE:
        default:
          append_block (s, "note", NULL, text, FALSE);
          break;
        }
    }
  g_string_append (s, "</body>\n</html>\n");
  return g_string_free (s, FALSE);
}
