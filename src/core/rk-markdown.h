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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMarkdownBlock, rk_markdown_block_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkMarkdownToolCall, rk_markdown_tool_call_free)

G_END_DECLS
