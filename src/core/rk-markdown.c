/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown.c — fenced-code splitting of model text, and prose as blocks
 * and Pango markup. Tool calls written as text: rk-markdown-tool-calls.c. */
#define G_LOG_DOMAIN "rk-markdown"
#include "config.h"

#include <string.h>

#include "rk-markdown.h"
#include "rk-markdown-private.h"

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

/* Valid UTF-8 without NUL bytes, for everything handed out. */
char *
_rk_markdown_clean_text (const char *p,
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
    g_autofree char *word = _rk_markdown_clean_text (info + start, i - start);
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
    b->text = _rk_markdown_clean_text (src + offset, length);
  else
    {
      b->text = _rk_markdown_clean_text (code->str, code->len);
      b->info = _rk_markdown_clean_text (fence->info, fence->info_len);
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

gboolean
_rk_markdown_is_only_blank (const char *s)
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
      if (_rk_markdown_is_only_blank (b->text))
        continue;
      g_ptr_array_add (out, g_steal_pointer (&b->text));
      b->text = g_strdup ("");
    }
  return out;
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

cmark_parser *
_rk_markdown_parser_new (void)
{
  static const char *const ext_names[] = { "strikethrough", "table", "autolink", "tasklist" };
  cmark_parser *parser;

  cmark_gfm_core_extensions_ensure_registered ();
  parser = cmark_parser_new (CMARK_OPT_DEFAULT);
  for (guint i = 0; i < G_N_ELEMENTS (ext_names); i++)
    {
      cmark_syntax_extension *ext = cmark_find_syntax_extension (ext_names[i]);
      if (ext != NULL)
        cmark_parser_attach_syntax_extension (parser, ext);
    }
  return parser;
}

static cmark_node *
parse_document (const char *valid)
{
  cmark_parser *parser = _rk_markdown_parser_new ();
  cmark_node *doc;

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
  valid = _rk_markdown_clean_text (text, len < 0 ? strlen (text) : (gsize) len);
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
  valid = _rk_markdown_clean_text (text, n);
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
          node->text = _rk_markdown_clean_text (text + node->offset, n - node->offset);
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
  valid = _rk_markdown_clean_text (text, len < 0 ? strlen (text) : (gsize) len);
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
          g_autofree char *valid = _rk_markdown_clean_text (text + start, pos - start);

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
