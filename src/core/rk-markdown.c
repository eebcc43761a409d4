/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown.c — fenced-code splitting of model text and recovery of tool
 * calls that a local model wrote out as JSON instead of calling the tool. */
#define G_LOG_DOMAIN "rk-markdown"
#include "config.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "rk-markdown.h"
#include "rk-json.h"

/* One JSON candidate is at most this long, nested at most this deep; all
 * candidates of one text together scan at most a few times its size. */
#define MAX_CANDIDATE   (4u << 20)
#define MAX_JSON_DEPTH  64
#define MAX_TOOL_CALLS  64

void
rk_markdown_block_free (RkMarkdownBlock *block)
{
  if (block == NULL)
    return;
  g_free (block->text);
  g_free (block->info);
  g_free (block->language);
  g_free (block);
}

void
rk_markdown_tool_call_free (RkMarkdownToolCall *call)
{
  if (call == NULL)
    return;
  g_free (call->name);
  g_free (call->code);
  g_free (call);
}

/* Valid UTF-8 without NUL bytes, for everything handed out. */
static char *
clean_text (const char *p,
            gsize       len)
{
  g_autoptr(GString) s = NULL;

  if (memchr (p, '\0', len) == NULL)
    return g_utf8_make_valid (p, len);
  s = g_string_sized_new (len + 8);
  for (gsize i = 0; i < len; i++)
    {
      if (p[i] == '\0')
        g_string_append (s, "\xef\xbf\xbd");
      else
        g_string_append_c (s, p[i]);
    }
  return g_utf8_make_valid (s->str, s->len);
}

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

typedef struct
{
  char  ch;       /* '`' or '~' */
  gsize count;    /* length of the fence run */
  gsize indent;   /* leading blanks */
  const char *info;
  gsize info_len;
} Fence;

/* Is [p, p+len) (a line without its '\n') an opening fence? */
static gboolean
parse_fence (const char *p,
             gsize       len,
             Fence      *f)
{
  gsize i = 0, start;

  while (i < len && (p[i] == ' ' || p[i] == '\t'))
    i++;
  if (i == len || (p[i] != '`' && p[i] != '~'))
    return FALSE;
  f->indent = i;
  f->ch = p[i];
  start = i;
  while (i < len && p[i] == f->ch)
    i++;
  f->count = i - start;
  if (f->count < 3)
    return FALSE;
  while (i < len && is_blank (p[i]))
    i++;
  f->info = p + i;
  f->info_len = len - i;
  while (f->info_len > 0 && is_blank (f->info[f->info_len - 1]))
    f->info_len--;
  /* A backtick fence's info string has no backtick: ```x``` is inline code. */
  if (f->ch == '`' && memchr (f->info, '`', f->info_len) != NULL)
    return FALSE;
  return TRUE;
}

static gboolean
is_closing_fence (const char  *p,
                  gsize        len,
                  const Fence *open)
{
  gsize i = 0, start;

  while (i < len && (p[i] == ' ' || p[i] == '\t'))
    i++;
  start = i;
  while (i < len && p[i] == open->ch)
    i++;
  if (i - start < open->count)
    return FALSE;
  while (i < len && is_blank (p[i]))
    i++;
  return i == len;
}

/* If the line is code with exactly the closing fence run glued to its end,
 * returns the length of the code part; else 0. */
static gsize
glued_fence (const char  *p,
             gsize        len,
             const Fence *open)
{
  gsize t = len, run = 0;

  while (t > 0 && is_blank (p[t - 1]))
    t--;
  while (run < t && p[t - 1 - run] == open->ch)
    run++;
  if (run != open->count || run == t)
    return 0;
  t -= run;
  for (gsize i = 0; i < t; i++)
    if (!is_blank (p[i]))
      return t;
  return 0;
}

static char *
language_of (const char *info,
             gsize       len)
{
  gsize i = 0, start;

  while (i < len && (info[i] == '{' || info[i] == '.' || is_blank (info[i])))
    i++;
  start = i;
  while (i < len && !is_blank (info[i]) && info[i] != '{' && info[i] != '}' && info[i] != ',' && info[i] != ';')
    i++;
  {
    g_autofree char *word = clean_text (info + start, i - start);
    return g_ascii_strdown (word, -1);
  }
}

gboolean
rk_markdown_is_python_language (const char *language)
{
  const char *rest;

  if (language == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (language, "py") == 0 || g_ascii_strcasecmp (language, "py3") == 0)
    return TRUE;
  if (g_ascii_strncasecmp (language, "ipython", 7) == 0)
    rest = language + 7;
  else if (g_ascii_strncasecmp (language, "python", 6) == 0)
    rest = language + 6;
  else
    return FALSE;
  for (; *rest; rest++)
    if (!g_ascii_isdigit (*rest) && *rest != '.')
      return FALSE;
  return TRUE;
}

static void
add_block (GPtrArray      *blocks,
           RkMarkdownKind  kind,
           const char     *src,
           gsize           offset,
           gsize           length,
           GString        *code,
           const Fence    *fence,
           gboolean        closed)
{
  RkMarkdownBlock *b;

  if (kind == RK_MARKDOWN_PROSE && length == 0)
    return;
  b = g_new0 (RkMarkdownBlock, 1);
  b->kind = kind;
  b->offset = offset;
  b->length = length;
  if (kind == RK_MARKDOWN_PROSE)
    b->text = clean_text (src + offset, length);
  else
    {
      b->text = clean_text (code->str, code->len);
      b->info = clean_text (fence->info, fence->info_len);
      b->language = language_of (fence->info, fence->info_len);
      b->closed = closed;
    }
  g_ptr_array_add (blocks, b);
}

/* Appends a code line with up to @indent leading blanks removed. */
static void
append_code_line (GString    *code,
                  const char *p,
                  gsize       len,
                  gsize       indent,
                  gboolean    newline)
{
  gsize i = 0;

  while (i < indent && i < len && (p[i] == ' ' || p[i] == '\t'))
    i++;
  g_string_append_len (code, p + i, len - i);
  if (newline)
    g_string_append_c (code, '\n');
}

GPtrArray *
rk_markdown_split (const char *text,
                   gssize      len)
{
  GPtrArray *blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_markdown_block_free);
  g_autoptr(GString) code = g_string_new (NULL);
  gsize n, pos = 0, prose_start = 0, fence_start = 0;
  gboolean in_code = FALSE;
  Fence fence = { 0, };
  gsize glued;

  if (text == NULL)
    return blocks;
  n = len < 0 ? strlen (text) : (gsize) len;

  while (pos < n)
    {
      const char *nl = memchr (text + pos, '\n', n - pos);
      gsize line_len = (nl ? (gsize) (nl - text) : n) - pos;
      gsize next = nl ? pos + line_len + 1 : n;

      if (!in_code)
        {
          if (parse_fence (text + pos, line_len, &fence))
            {
              add_block (blocks, RK_MARKDOWN_PROSE, text, prose_start, pos - prose_start, NULL, NULL, FALSE);
              in_code = TRUE;
              fence_start = pos;
              g_string_truncate (code, 0);
            }
        }
      else if (is_closing_fence (text + pos, line_len, &fence))
        {
          add_block (blocks, RK_MARKDOWN_CODE, text, fence_start, next - fence_start, code, &fence, TRUE);
          in_code = FALSE;
          prose_start = next;
        }
      else if ((glued = glued_fence (text + pos, line_len, &fence)) > 0)
        {
          /* "print(x)```": a model glued the closing fence to the last line. */
          append_code_line (code, text + pos, glued, fence.indent, TRUE);
          add_block (blocks, RK_MARKDOWN_CODE, text, fence_start, next - fence_start, code, &fence, TRUE);
          in_code = FALSE;
          prose_start = next;
        }
      else
        append_code_line (code, text + pos, line_len, fence.indent, nl != NULL);
      pos = next;
    }

  if (in_code)
    {
      add_block (blocks, RK_MARKDOWN_CODE, text, fence_start, n - fence_start, code, &fence, FALSE);
      prose_start = n;
    }
  add_block (blocks, RK_MARKDOWN_PROSE, text, prose_start, n - prose_start, NULL, NULL, FALSE);
  return blocks;
}

static gboolean
is_only_blank (const char *s)
{
  /* g_ascii_isspace() leaves out '\v'; Python does not. */
  return s[strspn (s, " \t\n\r\v\f")] == '\0';
}

GPtrArray *
rk_markdown_python_blocks (const char      *text,
                           gssize           len,
                           RkMarkdownFlags  flags)
{
  g_autoptr(GPtrArray) blocks = rk_markdown_split (text, len);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < blocks->len; i++)
    {
      RkMarkdownBlock *b = blocks->pdata[i];

      if (b->kind != RK_MARKDOWN_CODE)
        continue;
      if (!b->closed && (flags & RK_MARKDOWN_FLAGS_CLOSED_ONLY))
        continue;
      if (!rk_markdown_is_python_language (b->language) &&
          !(b->language[0] == '\0' && (flags & RK_MARKDOWN_FLAGS_UNTAGGED_PYTHON)))
        continue;
      if (is_only_blank (b->text))
        continue;
      g_ptr_array_add (out, g_steal_pointer (&b->text));
      b->text = g_strdup ("");
    }
  return out;
}

/* ---- tool calls written as text ---- */

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
  valid = clean_text (p, len);
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
                  if (c != NULL && !is_only_blank (c))
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
  if (code == NULL || is_only_blank (code))
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

/* ---- prose as a tree of blocks ---- */

void
rk_markdown_node_free (RkMarkdownNode *node)
{
  if (node == NULL)
    return;
  g_free (node->markup);
  g_free (node->text);
  g_free (node->language);
  g_ptr_array_unref (node->children);
  g_free (node);
}

static RkMarkdownNode *
node_new (RkMarkdownNodeKind kind)
{
  RkMarkdownNode *node = g_new0 (RkMarkdownNode, 1);

  node->kind = kind;
  node->children = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_markdown_node_free);
  return node;
}

/* Line ends as CommonMark counts them: "\n", "\r\n" or a lone "\r". Returns
 * the offset just past the line break of the line starting at @pos, or
 * @len when that line has none. */
static gsize
next_line (const char *text,
           gsize       len,
           gsize       pos,
           gboolean   *complete)
{
  for (gsize i = pos; i < len; i++)
    {
      if (text[i] == '\n' || text[i] == '\r')
        {
          *complete = TRUE;
          if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
            i++;
          return i + 1;
        }
    }
  *complete = FALSE;
  return len;
}

/* Sets each top-level node's offset from its start line. */
static void
set_offsets (GPtrArray  *nodes,
             const char *text,
             gsize       len)
{
  gsize pos = 0;
  guint line = 1;

  for (guint i = 0; i < nodes->len; i++)
    {
      RkMarkdownNode *node = nodes->pdata[i];
      gboolean complete;

      while (line < node->start_line && pos < len)
        {
          pos = next_line (text, len, pos, &complete);
          line++;
        }
      node->offset = pos;
    }
}

guint
rk_markdown_count_final (GPtrArray  *nodes,
                         const char *text,
                         gsize       len)
{
  g_return_val_if_fail (nodes != NULL, 0);

  for (guint i = nodes->len; i > 1; i--)
    {
      RkMarkdownNode *node = nodes->pdata[i - 1];
      gboolean complete = FALSE;

      if (node->offset >= len)
        continue;
      next_line (text, len, node->offset, &complete);
      if (complete)
        return i - 1;
    }
  return 0;
}

/* ---- prose to Pango markup ---- */

#ifdef RK_HAVE_CMARK_GFM
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

/* Markdown deeper than this renders its inner text flat. */
#define MAX_MARKUP_DEPTH 32

static void
append_escaped_len (GString    *s,
                    const char *text)
{
  g_autofree char *esc = g_markup_escape_text (text ? text : "", -1);
  g_string_append (s, esc);
}

static gboolean
safe_href (const char *url)
{
  if (url == NULL)
    return FALSE;
  return g_ascii_strncasecmp (url, "https://", 8) == 0 ||
         g_ascii_strncasecmp (url, "http://", 7) == 0 ||
         g_ascii_strncasecmp (url, "mailto:", 7) == 0;
}

static gboolean
in_tight_list (cmark_node *node)
{
  cmark_node *item = cmark_node_parent (node);
  cmark_node *list = item ? cmark_node_parent (item) : NULL;

  return item && list && cmark_node_get_type (item) == CMARK_NODE_ITEM &&
         cmark_node_get_type (list) == CMARK_NODE_LIST && cmark_node_get_list_tight (list);
}

static void
trim_newlines (GString *s)
{
  while (s->len > 0 && s->str[s->len - 1] == '\n')
    g_string_truncate (s, s->len - 1);
}

static void
end_block (GString *s,
           gboolean tight)
{
  trim_newlines (s);
  if (s->len > 0)
    g_string_append (s, tight ? "\n" : "\n\n");
}

static cmark_node *
parse_document (const char *valid)
{
  static const char *const ext_names[] = { "strikethrough", "table", "autolink", "tasklist" };
  cmark_parser *parser;
  cmark_node *doc;

  cmark_gfm_core_extensions_ensure_registered ();
  parser = cmark_parser_new (CMARK_OPT_DEFAULT);
  for (guint i = 0; i < G_N_ELEMENTS (ext_names); i++)
    {
      cmark_syntax_extension *ext = cmark_find_syntax_extension (ext_names[i]);
      if (ext != NULL)
        cmark_parser_attach_syntax_extension (parser, ext);
    }
  cmark_parser_feed (parser, valid, strlen (valid));
  doc = cmark_parser_finish (parser);
  cmark_parser_free (parser);
  return doc;
}

/* Appends the Pango markup of @root and everything beneath it to @s. */
static void
render_pango (GString    *s,
              cmark_node *root)
{
  cmark_iter *iter;
  cmark_event_type ev;
  /* Tags opened at each depth, so that every open tag is closed in order. */
  const char *open_tags[MAX_MARKUP_DEPTH];
  int depth = 0, list_depth = 0;

  iter = cmark_iter_new (root);
  while ((ev = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *node = cmark_iter_get_node (iter);
      cmark_node_type type = cmark_node_get_type (node);
      const char *type_name = cmark_node_get_type_string (node);
      gboolean enter = ev == CMARK_EVENT_ENTER;
      const char *tag = NULL, *open = NULL;

      switch (type)
        {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_HTML_INLINE:
          append_escaped_len (s, cmark_node_get_literal (node));
          continue;
        case CMARK_NODE_CODE:
          g_string_append (s, "<tt>");
          append_escaped_len (s, cmark_node_get_literal (node));
          g_string_append (s, "</tt>");
          continue;
        case CMARK_NODE_SOFTBREAK:
          g_string_append_c (s, ' ');
          continue;
        case CMARK_NODE_LINEBREAK:
          g_string_append_c (s, '\n');
          continue;
        case CMARK_NODE_CODE_BLOCK:
        case CMARK_NODE_HTML_BLOCK:
          g_string_append (s, "<tt>");
          {
            g_autofree char *lit = g_strdup (cmark_node_get_literal (node));
            gsize l = lit ? strlen (lit) : 0;
            while (l > 0 && lit[l - 1] == '\n')
              lit[--l] = '\0';
            append_escaped_len (s, lit);
          }
          g_string_append (s, "</tt>");
          end_block (s, FALSE);
          continue;
        case CMARK_NODE_THEMATIC_BREAK:
          g_string_append (s, "──────────");
          end_block (s, FALSE);
          continue;
        case CMARK_NODE_PARAGRAPH:
          if (!enter)
            end_block (s, in_tight_list (node));
          continue;
        case CMARK_NODE_LIST:
          if (enter)
            list_depth++;
          else
            {
              list_depth--;
              end_block (s, list_depth > 0);
            }
          continue;
        case CMARK_NODE_ITEM:
          if (enter)
            {
              cmark_node *list = cmark_node_parent (node);
              trim_newlines (s);
              if (s->len > 0)
                g_string_append_c (s, '\n');
              for (int i = 1; i < list_depth; i++)
                g_string_append (s, "    ");
              if (list && cmark_node_get_list_type (list) == CMARK_ORDERED_LIST)
                {
                  int n = cmark_node_get_list_start (list);
                  for (cmark_node *p = cmark_node_previous (node); p; p = cmark_node_previous (p))
                    n++;
                  g_string_append_printf (s, "%d. ", n);
                }
              else
                g_string_append (s, "• ");
            }
          continue;
        case CMARK_NODE_HEADING:
          tag = "span";
          switch (cmark_node_get_heading_level (node))
            {
            case 1: open = "<span weight=\"bold\" size=\"x-large\">"; break;
            case 2: open = "<span weight=\"bold\" size=\"large\">"; break;
            default: open = "<span weight=\"bold\">"; break;
            }
          break;
        case CMARK_NODE_BLOCK_QUOTE:
          tag = "i";
          open = "<i>";
          break;
        case CMARK_NODE_EMPH:
          tag = "i";
          open = "<i>";
          break;
        case CMARK_NODE_STRONG:
          tag = "b";
          open = "<b>";
          break;
        case CMARK_NODE_LINK:
          if (safe_href (cmark_node_get_url (node)))
            {
              tag = "a";
              if (enter && cmark_node_first_child (node) != NULL)
                {
                  /* Built here, as the URL varies. */
                  if (depth < MAX_MARKUP_DEPTH)
                    {
                      g_string_append (s, "<a href=\"");
                      append_escaped_len (s, cmark_node_get_url (node));
                      g_string_append (s, "\">");
                      open_tags[depth] = "a";
                    }
                  depth++;
                  continue;
                }
            }
          break;
        default:
          if (g_strcmp0 (type_name, "strikethrough") == 0)
            {
              tag = "s";
              open = "<s>";
            }
          else if ((g_strcmp0 (type_name, "table_row") == 0 || g_strcmp0 (type_name, "table_header") == 0) && !enter)
            g_string_append_c (s, '\n');
          else if (g_strcmp0 (type_name, "table_cell") == 0 && enter && cmark_node_previous (node) != NULL)
            g_string_append (s, " │ ");
          else if (g_strcmp0 (type_name, "table") == 0 && !enter)
            end_block (s, FALSE);
          break;
        }

      if (tag == NULL || cmark_node_first_child (node) == NULL)
        continue;
      if (enter)
        {
          /* Past the depth limit nothing is opened, and so nothing closed. */
          if (depth < MAX_MARKUP_DEPTH)
            {
              g_string_append (s, open);
              open_tags[depth] = tag;
            }
          depth++;
        }
      else if (depth > 0)
        {
          gboolean block = type == CMARK_NODE_HEADING || type == CMARK_NODE_BLOCK_QUOTE;

          depth--;
          if (block)
            trim_newlines (s);
          if (depth < MAX_MARKUP_DEPTH)
            g_string_append_printf (s, "</%s>", open_tags[depth]);
          if (block)
            end_block (s, FALSE);
        }
    }
  cmark_iter_free (iter);
}

char *
rk_markdown_to_pango (const char *text,
                      gssize      len)
{
  g_autofree char *valid = NULL;
  GString *s;
  cmark_node *doc;

  if (text == NULL)
    return g_strdup ("");
  valid = clean_text (text, len < 0 ? strlen (text) : (gsize) len);
  doc = parse_document (valid);
  s = g_string_new (NULL);
  render_pango (s, doc);
  cmark_node_free (doc);
  trim_newlines (s);
  return g_string_free (s, FALSE);
}


static char *
inline_markup (cmark_node *block)
{
  GString *s = g_string_new (NULL);

  for (cmark_node *child = cmark_node_first_child (block); child; child = cmark_node_next (child))
    render_pango (s, child);
  trim_newlines (s);
  return g_string_free (s, FALSE);
}

static char *
block_markup (cmark_node *block)
{
  GString *s = g_string_new (NULL);

  render_pango (s, block);
  trim_newlines (s);
  return g_string_free (s, FALSE);
}

static char *
literal_text (cmark_node *node)
{
  const char *lit = cmark_node_get_literal (node);
  gsize l = lit ? strlen (lit) : 0;

  while (l > 0 && lit[l - 1] == '\n')
    l--;
  return g_strndup (lit ? lit : "", l);
}

static RkMarkdownNode *
convert_node (cmark_node *n,
              guint       depth)
{
  const char *type_name = cmark_node_get_type_string (n);
  RkMarkdownNode *node;

  switch (cmark_node_get_type (n))
    {
    case CMARK_NODE_PARAGRAPH:
      node = node_new (RK_MARKDOWN_NODE_PARAGRAPH);
      node->markup = inline_markup (n);
      return node;
    case CMARK_NODE_HEADING:
      node = node_new (RK_MARKDOWN_NODE_HEADING);
      node->level = CLAMP (cmark_node_get_heading_level (n), 1, 6);
      node->markup = inline_markup (n);
      return node;
    case CMARK_NODE_CODE_BLOCK:
      {
        const char *info = cmark_node_get_fence_info (n);
        node = node_new (RK_MARKDOWN_NODE_CODE);
        node->text = literal_text (n);
        node->language = language_of (info ? info : "", info ? strlen (info) : 0);
        return node;
      }
    case CMARK_NODE_HTML_BLOCK:
      node = node_new (RK_MARKDOWN_NODE_LITERAL);
      node->text = literal_text (n);
      return node;
    case CMARK_NODE_THEMATIC_BREAK:
      return node_new (RK_MARKDOWN_NODE_RULE);
    case CMARK_NODE_LIST:
    case CMARK_NODE_ITEM:
    case CMARK_NODE_BLOCK_QUOTE:
      if (depth >= RK_MARKDOWN_MAX_NESTING)
        break;
      if (cmark_node_get_type (n) == CMARK_NODE_LIST)
        {
          node = node_new (RK_MARKDOWN_NODE_LIST);
          node->ordered = cmark_node_get_list_type (n) == CMARK_ORDERED_LIST;
          node->start = MAX (cmark_node_get_list_start (n), 0);
          node->tight = cmark_node_get_list_tight (n);
        }
      else
        node = node_new (cmark_node_get_type (n) == CMARK_NODE_ITEM ? RK_MARKDOWN_NODE_ITEM : RK_MARKDOWN_NODE_QUOTE);
      if (g_strcmp0 (type_name, "tasklist") == 0)
        node->task = cmark_gfm_extensions_get_tasklist_item_checked (n) ? 2 : 1;
      for (cmark_node *c = cmark_node_first_child (n); c; c = cmark_node_next (c))
        g_ptr_array_add (node->children, convert_node (c, depth + 1));
      return node;
    default:
      if (g_strcmp0 (type_name, "table") == 0)
        {
          guint n_columns = cmark_gfm_extensions_get_table_columns (n);
          const uint8_t *aligns = cmark_gfm_extensions_get_table_alignments (n);

          node = node_new (RK_MARKDOWN_NODE_TABLE);
          node->n_columns = n_columns;
          for (cmark_node *r = cmark_node_first_child (n); r; r = cmark_node_next (r))
            {
              RkMarkdownNode *row = node_new (RK_MARKDOWN_NODE_TABLE_ROW);
              guint col = 0;

              row->header = cmark_gfm_extensions_get_table_row_is_header (r) != 0;
              for (cmark_node *c = cmark_node_first_child (r); c && col < n_columns; c = cmark_node_next (c), col++)
                {
                  RkMarkdownNode *cell = node_new (RK_MARKDOWN_NODE_TABLE_CELL);
                  cell->markup = inline_markup (c);
                  if (aligns != NULL && (aligns[col] == 'l' || aligns[col] == 'c' || aligns[col] == 'r'))
                    cell->align = (char) aligns[col];
                  g_ptr_array_add (row->children, cell);
                }
              g_ptr_array_add (node->children, row);
            }
          return node;
        }
      break;
    }

  /* Too deep, or a kind without a widget of its own: its markup, flat. */
  node = node_new (RK_MARKDOWN_NODE_PARAGRAPH);
  node->markup = block_markup (n);
  return node;
}

GPtrArray *
rk_markdown_parse (const char *text,
                   gssize      len)
{
  GPtrArray *nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_markdown_node_free);
  g_autofree char *valid = NULL;
  cmark_node *doc;
  gsize n;

  if (text == NULL)
    return nodes;
  n = len < 0 ? strlen (text) : (gsize) len;
  valid = clean_text (text, n);
  doc = parse_document (valid);
  for (cmark_node *c = cmark_node_first_child (doc); c; c = cmark_node_next (c))
    {
      RkMarkdownNode *node;

      if (nodes->len == RK_MARKDOWN_MAX_NODES)
        {
          /* The rest as it is: a view of thousands of blocks would crawl. */
          node = node_new (RK_MARKDOWN_NODE_LITERAL);
          node->start_line = MAX (cmark_node_get_start_line (c), 1);
          node->end_line = cmark_node_get_end_line (cmark_node_last_child (doc));
          g_ptr_array_add (nodes, node);
          set_offsets (nodes, text, n);
          node->text = clean_text (text + node->offset, n - node->offset);
          break;
        }
      node = convert_node (c, 0);
      node->start_line = MAX (cmark_node_get_start_line (c), 1);
      node->end_line = MAX ((guint) cmark_node_get_end_line (c), node->start_line);
      g_ptr_array_add (nodes, node);
    }
  cmark_node_free (doc);
  set_offsets (nodes, text, n);
  return nodes;
}

#else /* !RK_HAVE_CMARK_GFM */

char *
rk_markdown_to_pango (const char *text,
                      gssize      len)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    return g_strdup ("");
  valid = clean_text (text, len < 0 ? strlen (text) : (gsize) len);
  return g_markup_escape_text (valid, -1);
}

GPtrArray *
rk_markdown_parse (const char *text,
                   gssize      len)
{
  GPtrArray *nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_markdown_node_free);
  gsize n, pos = 0, start = 0;
  guint line = 1, start_line = 1;
  gboolean in_para = FALSE;

  if (text == NULL)
    return nodes;
  n = len < 0 ? strlen (text) : (gsize) len;
  while (pos <= n)
    {
      gboolean complete = FALSE;
      gsize next = pos < n ? next_line (text, n, pos, &complete) : n;
      gboolean blank = TRUE;

      for (gsize i = pos; i < next; i++)
        if (!g_ascii_isspace (text[i]))
          blank = FALSE;
      if (!blank && !in_para)
        {
          in_para = TRUE;
          start = pos;
          start_line = line;
        }
      if ((blank || pos >= n) && in_para && nodes->len < RK_MARKDOWN_MAX_NODES)
        {
          RkMarkdownNode *node = node_new (RK_MARKDOWN_NODE_PARAGRAPH);
          g_autofree char *valid = clean_text (text + start, pos - start);

          g_strstrip (valid);
          node->markup = g_markup_escape_text (valid, -1);
          node->start_line = start_line;
          node->end_line = MAX (line - 1, start_line);
          g_ptr_array_add (nodes, node);
          in_para = FALSE;
        }
      if (pos >= n)
        break;
      pos = next;
      line++;
    }
  set_offsets (nodes, text, n);
  return nodes;
}

#endif
