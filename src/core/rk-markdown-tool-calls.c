/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown-tool-calls.c — recovery of the python tool calls a local model
 * wrote out as JSON in its text instead of calling the tool. */
#define G_LOG_DOMAIN "rk-markdown"
#include "config.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "rk-json.h"
#include "rk-markdown.h"
#include "rk-markdown-private.h"

/* One JSON candidate is at most this long, nested at most this deep; all
 * candidates of one text together scan at most a few times its size. */
#define MAX_CANDIDATE   (4u << 20)
#define MAX_JSON_DEPTH  64
#define MAX_TOOL_CALLS  64

void
rk_markdown_tool_call_free (RkMarkdownToolCall *call)
{
  if (call == NULL)
    return;
  g_free (call->name);
  g_free (call->code);
  g_free (call);
}

/* Finds the end of the JSON object starting at p[0] == '{': the index just
 * past its closing brace, or 0 if it does not close within @len bytes, is
 * nested too deep, or its brackets do not match. */
static gsize
match_object (const char *p,
              gsize       len)
{
  char stack[MAX_JSON_DEPTH];
  int depth = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = p[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '{':
        case '[':
          if (depth == MAX_JSON_DEPTH)
            return 0;
          stack[depth++] = c;
          break;
        case '}':
        case ']':
          if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '['))
            return 0;
          if (--depth == 0)
            return i + 1;
          break;
        default:
          break;
        }
    }
  return 0;
}

/* Models often put raw newlines and tabs into JSON strings, or regex
 * backslashes like "\d": escape them so the JSON parses. */
static char *
repair_json (const char *p,
             gsize       len)
{
  GString *s = g_string_sized_new (len + 64);
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      guchar c = p[i];

      if (!in_string)
        {
          if (c == '"')
            in_string = TRUE;
          g_string_append_c (s, c);
          continue;
        }
      if (c == '"')
        {
          in_string = FALSE;
          g_string_append_c (s, c);
        }
      else if (c == '\\')
        {
          char e = i + 1 < len ? p[i + 1] : '\0';
          if (e && strchr ("\"\\/bfnrtu", e) != NULL)
            {
              g_string_append_c (s, '\\');
              g_string_append_c (s, e);
              i++;
            }
          else
            g_string_append (s, "\\\\");
        }
      else if (c == '\n')
        g_string_append (s, "\\n");
      else if (c == '\r')
        g_string_append (s, "\\r");
      else if (c == '\t')
        g_string_append (s, "\\t");
      else if (c < 0x20)
        g_string_append_printf (s, "\\u%04x", c);
      else
        g_string_append_c (s, c);
    }
  return g_string_free (s, FALSE);
}

static JsonNode *
parse_json (const char *p,
            gsize       len,
            gsize      *budget)
{
  g_autofree char *valid = NULL;
  g_autofree char *repaired = NULL;

  if (len > *budget || len > MAX_CANDIDATE)
    return NULL;
  *budget -= len;
  /* The matcher bounded the depth; json-glib's parser recurses. */
  if (p[0] != '{' || match_object (p, len) != len)
    return NULL;

  /* Repair first: json-glib accepts some invalid escapes but drops the
   * backslash ("\d" becomes "d"), which would change the code. */
  valid = _rk_markdown_clean_text (p, len);
  repaired = repair_json (valid, strlen (valid));
  if (match_object (repaired, strlen (repaired)) != strlen (repaired))
    return NULL;
  /* A control byte repaired to a six-byte escape grows sixfold. */
  return rk_json_parse (repaired, -1, MAX_CANDIDATE * 6, MAX_JSON_DEPTH, RK_JSON_SCAN_DEFAULT, NULL);
}

static const char *
get_string (JsonObject *o,
            const char *const *names)
{
  for (guint i = 0; names[i]; i++)
    {
      JsonNode *n = json_object_get_member (o, names[i]);
      if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        return json_node_get_string (n);
    }
  return NULL;
}

static gboolean
is_python_tool (const char *name)
{
  static const char *const names[] = {
    "python", "run_python", "execute_python", "python_exec", "exec_python",
    "ipython", "code_interpreter", "run_code", "execute_code", "python_interpreter",
    "run_python_code", "execute_python_code", "jupyter", "notebook", NULL
  };
  g_autofree char *down = g_ascii_strdown (name, -1);

  g_strstrip (down);
  for (guint i = 0; names[i]; i++)
    if (g_str_equal (down, names[i]))
      return TRUE;
  return FALSE;
}

static const char *const code_keys[] = { "code", "source", "python", "script", "program", "cell", NULL };

static gboolean
extract_call (JsonObject  *o,
              gboolean     wrapped,
              int          depth,
              gsize       *budget,
              char       **name_out,
              char       **code_out)
{
  static const char *const name_keys[] = { "name", "tool", "tool_name", "function", "recipient_name", "action", NULL };
  static const char *const arg_keys[] = { "arguments", "parameters", "args", "input", "tool_input", "action_input", "params", NULL };
  JsonNode *n;
  const char *name, *code;

  if (depth > 3)
    return FALSE;

  /* {"tool_calls": [ {...}, ... ]}: the first python call. */
  n = json_object_get_member (o, "tool_calls");
  if (n != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint i = 0; i < json_array_get_length (a) && i < 16; i++)
        {
          JsonNode *e = json_array_get_element (a, i);
          if (JSON_NODE_HOLDS_OBJECT (e) &&
              extract_call (json_node_get_object (e), FALSE, depth + 1, budget, name_out, code_out))
            return TRUE;
        }
      return FALSE;
    }

  /* {"function": {"name": ..., "arguments": ...}} */
  n = json_object_get_member (o, "function");
  if (n != NULL && JSON_NODE_HOLDS_OBJECT (n))
    return extract_call (json_node_get_object (n), wrapped, depth + 1, budget, name_out, code_out);

  name = get_string (o, name_keys);
  if (name != NULL ? !is_python_tool (name) : !wrapped)
    return FALSE;

  code = NULL;
  for (guint i = 0; arg_keys[i] && code == NULL; i++)
    {
      JsonNode *args = json_object_get_member (o, arg_keys[i]);

      if (args == NULL)
        continue;
      if (JSON_NODE_HOLDS_OBJECT (args))
        code = get_string (json_node_get_object (args), code_keys);
      else if (JSON_NODE_HOLDS_VALUE (args) && json_node_get_value_type (args) == G_TYPE_STRING)
        {
          const char *s = json_node_get_string (args);
          const char *t = s;

          while (g_ascii_isspace (*t))
            t++;
          if (*t == '{')
            {
              /* Arguments as a JSON string, OpenAI style. */
              g_autoptr(JsonNode) inner = parse_json (t, strlen (t), budget);
              if (inner != NULL && JSON_NODE_HOLDS_OBJECT (inner))
                {
                  const char *c = get_string (json_node_get_object (inner), code_keys);
                  /* Blank code is no call, here as below (fuzz-markdown). */
                  if (c != NULL && !_rk_markdown_is_only_blank (c))
                    {
                      *name_out = g_strdup (name ? name : "python");
                      *code_out = g_strdup (c);
                      return TRUE;
                    }
                }
            }
          else
            code = s;  /* the code itself */
        }
    }
  if (code == NULL)
    code = get_string (o, code_keys);
  if (code == NULL || _rk_markdown_is_only_blank (code))
    return FALSE;

  *name_out = g_strdup (name ? name : "python");
  *code_out = g_strdup (code);
  return TRUE;
}

static gsize
skip_blank_back (const char *text,
                 gsize       lo,
                 gsize       pos)
{
  while (pos > lo && g_ascii_isspace (text[pos - 1]))
    pos--;
  return pos;
}

static gsize
skip_blank_fwd (const char *text,
                gsize       hi,
                gsize       pos)
{
  while (pos < hi && g_ascii_isspace (text[pos]))
    pos++;
  return pos;
}

#define OPEN_TAG "<tool_call>"
#define CLOSE_TAG "</tool_call>"

static gboolean
tag_before (const char *text, gsize lo, gsize pos, gsize *start)
{
  gsize p = skip_blank_back (text, lo, pos);
  gsize tl = strlen (OPEN_TAG);

  if (p - lo >= tl && g_ascii_strncasecmp (text + p - tl, OPEN_TAG, tl) == 0)
    {
      *start = p - tl;
      return TRUE;
    }
  return FALSE;
}

static gboolean
tag_after (const char *text, gsize hi, gsize pos, gsize *end)
{
  gsize p = skip_blank_fwd (text, hi, pos);
  gsize tl = strlen (CLOSE_TAG);

  if (hi - p >= tl && g_ascii_strncasecmp (text + p, CLOSE_TAG, tl) == 0)
    {
      *end = p + tl;
      return TRUE;
    }
  return FALSE;
}

static void
scan_region (const char  *text,
             gsize        lo,
             gsize        hi,
             const RkMarkdownBlock *block,
             gsize       *budget,
             GPtrArray   *calls)
{
  gsize i = lo;

  while (i < hi && calls->len < MAX_TOOL_CALLS && *budget > 0)
    {
      const char *brace = memchr (text + i, '{', hi - i);
      gsize start, end, scan_len, span_start, span_end, tag_start = 0, tag_end = 0;
      gboolean wrapped;
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *name = NULL, *code = NULL;

      if (brace == NULL)
        break;
      start = (gsize) (brace - text);
      i = start + 1;
      if (skip_blank_fwd (text, hi, start + 1) >= hi || text[skip_blank_fwd (text, hi, start + 1)] != '"')
        continue;
      scan_len = MIN (hi - start, MAX_CANDIDATE);
      scan_len = MIN (scan_len, *budget);
      end = match_object (text + start, scan_len);
      *budget -= MIN (*budget, end ? end : scan_len);
      if (end == 0)
        continue;
      end += start;
      node = parse_json (text + start, end - start, budget);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        continue;

      wrapped = tag_before (text, lo, start, &tag_start) && tag_after (text, hi, end, &tag_end);
      if (!wrapped && block != NULL && block->kind == RK_MARKDOWN_CODE)
        wrapped = g_str_equal (block->language, "tool_call") || g_str_equal (block->language, "tool_code");
      if (!extract_call (json_node_get_object (node), wrapped, 0, budget, &name, &code))
        continue;

      span_start = start;
      span_end = end;
      if (tag_before (text, lo, start, &tag_start))
        span_start = tag_start;
      if (tag_after (text, hi, end, &tag_end))
        span_end = tag_end;
      /* A fenced block that holds only this call goes with it. */
      if (block != NULL && block->kind == RK_MARKDOWN_CODE)
        {
          gsize first = memchr (text + block->offset, '\n', block->length) ?
                        (gsize) ((const char *) memchr (text + block->offset, '\n', block->length) - text) + 1 : hi;
          if (skip_blank_fwd (text, hi, first) == span_start)
            {
              gsize after = skip_blank_fwd (text, hi, span_end);
              const char *rest = text + after;
              gsize rest_len = hi - after;
              gboolean only_fence = TRUE;

              for (gsize k = 0; k < rest_len; k++)
                if (rest[k] != '`' && rest[k] != '~' && !g_ascii_isspace (rest[k]))
                  only_fence = FALSE;
              if (only_fence)
                span_start = block->offset, span_end = block->offset + block->length;
            }
        }

      /* Calls never overlap: a wrapper reaching back over an earlier call is dropped. */
      if (calls->len > 0)
        {
          RkMarkdownToolCall *prev = calls->pdata[calls->len - 1];
          if (span_start < prev->offset + prev->length)
            span_start = start;
        }

      {
        RkMarkdownToolCall *call = g_new0 (RkMarkdownToolCall, 1);
        call->name = g_steal_pointer (&name);
        call->code = g_steal_pointer (&code);
        call->offset = span_start;
        call->length = span_end - span_start;
        g_ptr_array_add (calls, call);
      }
      i = MAX (end, span_end);
    }
}

GPtrArray *
rk_markdown_find_tool_calls (const char *text,
                             gssize      len)
{
  GPtrArray *calls = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_markdown_tool_call_free);
  g_autoptr(GPtrArray) blocks = NULL;
  gsize n, budget;

  if (text == NULL)
    return calls;
  n = len < 0 ? strlen (text) : (gsize) len;
  budget = 8 * (gsize) n + MAX_CANDIDATE;
  blocks = rk_markdown_split (text, n);

  for (guint i = 0; i < blocks->len; i++)
    {
      const RkMarkdownBlock *b = blocks->pdata[i];

      /* Code meant to run is not a tool call, even if it builds such JSON. */
      if (b->kind == RK_MARKDOWN_CODE && rk_markdown_is_python_language (b->language))
        continue;
      if (b->kind == RK_MARKDOWN_CODE)
        {
          /* The content only: not the fence line and its info string. */
          const char *nl = memchr (text + b->offset, '\n', b->length);
          gsize lo = nl ? (gsize) (nl - text) + 1 : b->offset + b->length;
          scan_region (text, lo, b->offset + b->length, b, &budget, calls);
        }
      else
        scan_region (text, b->offset, b->offset + b->length, b, &budget, calls);
    }
  return calls;
}
