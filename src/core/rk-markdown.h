/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown.h — splits model text into prose and fenced code blocks, picks
 * out the Python to run, and finds tool calls a model wrote out as text. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RK_MARKDOWN_PROSE,
  RK_MARKDOWN_CODE,
} RkMarkdownKind;

typedef struct
{
  RkMarkdownKind kind;
  /* Prose: the text as written. Code: the content between the fences, with
   * the fence's indentation removed from each line; ends with '\n' unless
   * empty or unterminated in mid-line. */
  char          *text;
  /* Code only: the info string after the opening fence (trimmed), and its
   * first word, lower-cased, without a leading '{' or '.'; "" if none. */
  char          *info;
  char          *language;
  /* Code only: FALSE when the text ended before the closing fence. */
  gboolean       closed;
  /* The block's bytes in the source, fences included. */
  gsize          offset;
  gsize          length;
} RkMarkdownBlock;

void       rk_markdown_block_free       (RkMarkdownBlock *block);

/* Splits @text into alternating prose and code blocks, in order, covering
 * every byte. Follows CommonMark fences (``` or ~~~, three or more; closed by
 * the same character at least as many times), but accepts fences indented
 * any amount (models indent them in lists). Never fails; NUL bytes and
 * invalid UTF-8 are replaced in the returned texts. -1 = NUL-terminated.
 * Returns: (element-type RkMarkdownBlock) */
GPtrArray *rk_markdown_split            (const char      *text,
                                         gssize           len);

typedef enum
{
  RK_MARKDOWN_FLAGS_NONE            = 0,
  /* Treat code blocks with no info string as Python too. */
  RK_MARKDOWN_FLAGS_UNTAGGED_PYTHON = 1 << 0,
  /* Leave out a last block whose closing fence never came. */
  RK_MARKDOWN_FLAGS_CLOSED_ONLY     = 1 << 1,
} RkMarkdownFlags;

/* TRUE for python, py, python3, py3, ipython, ipython3, python3.x, ... */
gboolean   rk_markdown_is_python_language (const char    *language);

/* The code of the Python blocks of @text, in order.
 * Returns: (element-type utf8) */
GPtrArray *rk_markdown_python_blocks    (const char      *text,
                                         gssize           len,
                                         RkMarkdownFlags  flags);

/* A call of the python tool that a model wrote into its text instead of
 * making it through the API. */
typedef struct
{
  char  *name;    /* the tool name as written, e.g. "python" */
  char  *code;    /* the code to run */
  gsize  offset;  /* bytes of the source it occupies, with its <tool_call> */
  gsize  length;  /* tags or ```json fence when they hold only the call */
} RkMarkdownToolCall;

void       rk_markdown_tool_call_free   (RkMarkdownToolCall *call);

/* Finds the python tool calls written as JSON in @text: bare, in a ```json
 * fence, or in <tool_call>…</tool_call>; shapes {"name", "arguments"|
 * "parameters"|"input"}, {"tool", "code"}, {"function": {"name",
 * "arguments"}} (arguments an object or a JSON string), {"tool_calls": [...]}.
 * Tolerates raw newlines inside JSON strings. Incomplete JSON is ignored.
 * Returns: (element-type RkMarkdownToolCall) */
GPtrArray *rk_markdown_find_tool_calls  (const char      *text,
                                         gssize           len);

/* Prose markdown as Pango markup for a GtkLabel (use-markup): emphasis,
 * strong, strikethrough, inline code, headings, lists, quotes, tables as
 * lines; links only for http(s) and mailto, as <a href>; raw HTML and
 * images are shown as text, never interpreted. Without cmark-gfm at build
 * time, the text escaped. Always valid markup. */
char      *rk_markdown_to_pango         (const char      *text,
                                         gssize           len);


/* Prose markdown as a tree of blocks, for a view that builds one widget per
 * block (headings, paragraphs, lists, quotes, fenced code, GFM tables,
 * rules). Inline content (emphasis, strong, strikethrough, inline code,
 * links) is given as Pango markup, with the same rules as
 * rk_markdown_to_pango(). */
typedef enum
{
  RK_MARKDOWN_NODE_PARAGRAPH,   /* markup */
  RK_MARKDOWN_NODE_HEADING,     /* markup, level 1-6 */
  RK_MARKDOWN_NODE_CODE,        /* text, language ("" if none) */
  RK_MARKDOWN_NODE_LIST,        /* children: ITEM; ordered, start, tight */
  RK_MARKDOWN_NODE_ITEM,        /* children: blocks; task */
  RK_MARKDOWN_NODE_QUOTE,       /* children: blocks */
  RK_MARKDOWN_NODE_TABLE,       /* children: TABLE_ROW; n_columns */
  RK_MARKDOWN_NODE_TABLE_ROW,   /* children: TABLE_CELL; header */
  RK_MARKDOWN_NODE_TABLE_CELL,  /* markup, align */
  RK_MARKDOWN_NODE_RULE,
  RK_MARKDOWN_NODE_LITERAL,     /* text shown as it is (raw HTML, overflow) */
} RkMarkdownNodeKind;

typedef struct _RkMarkdownNode RkMarkdownNode;

struct _RkMarkdownNode
{
  RkMarkdownNodeKind  kind;
  char               *markup;
  char               *text;
  char               *language;
  guint               level;
  gboolean            ordered;
  guint               start;
  gboolean            tight;
  gboolean            header;
  guint               n_columns;
  char                align;       /* 'l', 'c', 'r' or 0 */
  guint               task;        /* ITEM: 0 not a task, 1 to do, 2 done */
  GPtrArray          *children;    /* RkMarkdownNode, never NULL */
  /* Top-level nodes: the lines they span in the source (1-based) and the
   * byte offset in the source at which their first line begins. */
  guint               start_line;
  guint               end_line;
  gsize               offset;
};

/* At most this many top-level nodes; the rest of the text becomes one
 * LITERAL node. Containers nested deeper than RK_MARKDOWN_MAX_NESTING are
 * flattened into one paragraph of markup. */
#define RK_MARKDOWN_MAX_NODES    2000
#define RK_MARKDOWN_MAX_NESTING  12

void       rk_markdown_node_free        (RkMarkdownNode  *node);

/* Parses @text into its top-level blocks, in order. Never fails; NUL bytes
 * and invalid UTF-8 are replaced. Without cmark-gfm at build time, each
 * run of non-blank lines is one paragraph of escaped text.
 * Returns: (element-type RkMarkdownNode) */
GPtrArray *rk_markdown_parse            (const char      *text,
                                         gssize           len);

/* For streaming: the number of leading nodes of @nodes (parsed from @text)
 * that no text appended later can change. A block is final once the next
 * block has begun on a line that is complete (ends with '\n'): CommonMark
 * never reopens a closed block. */
guint      rk_markdown_count_final      (GPtrArray       *nodes,
                                         const char      *text,
                                         gsize            len);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMarkdownBlock, rk_markdown_block_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMarkdownToolCall, rk_markdown_tool_call_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMarkdownNode, rk_markdown_node_free)

G_END_DECLS
