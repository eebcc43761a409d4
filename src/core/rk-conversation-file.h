/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-file.h — one file of a conversation: its name in the
 * workspace, where it came from, how far it was read and its profile, as
 * read-only properties a window binds to. RkConversation makes and changes
 * them; rk_conversation_get_files() lists them. GTK-free. */
#pragma once

#include <gio/gio.h>

#include "rk-enum-types.h"
#include "rk-profile.h"

G_BEGIN_DECLS

/* Where a file is in its life. The profile is known in READY and FAILED
 * only (in FAILED it holds only an error sentence). */
typedef enum
{
  RK_CONVERSATION_FILE_COPYING,    /* being copied into the workspace */
  RK_CONVERSATION_FILE_WAITING,    /* copied; waiting for a free profiler */
  RK_CONVERSATION_FILE_PROFILING,  /* being read by the profiler in the sandbox */
  RK_CONVERSATION_FILE_READY,      /* its profile is known */
  RK_CONVERSATION_FILE_FAILED,     /* not added, not read, or stopped: the profile says why */
  RK_CONVERSATION_FILE_REMOVED,    /* taken out of the conversation */
} RkConversationFileState;

#define RK_TYPE_CONVERSATION_FILE (rk_conversation_file_get_type ())
G_DECLARE_FINAL_TYPE (RkConversationFile, rk_conversation_file, RK, CONVERSATION_FILE, GObject)

const char             *rk_conversation_file_get_name       (RkConversationFile *self);
const char             *rk_conversation_file_get_original   (RkConversationFile *self);
RkFileProfile          *rk_conversation_file_get_profile    (RkConversationFile *self);
RkFileProfile          *rk_conversation_file_get_estimate   (RkConversationFile *self);
double                  rk_conversation_file_get_progress   (RkConversationFile *self);
RkConversationFileState rk_conversation_file_get_state      (RkConversationFile *self);
/* TRUE while it is copied, waits or is read (COPYING, WAITING, PROFILING). */
gboolean                rk_conversation_file_get_busy       (RkConversationFile *self);
/* TRUE once it was copied into the workspace and until it is removed from
 * there (not while COPYING, nor when it could not be copied). An expired
 * session's workspace is gone as a whole (RkConversation:expired); a
 * restart brings the copies back. */
gboolean                rk_conversation_file_get_copied     (RkConversationFile *self);
/* The id of its RK_ENTRY_ATTACHMENT in the transcript (its card's), 0
 * once removed. */
guint                   rk_conversation_file_get_entry_id   (RkConversationFile *self);

/* Properties (read-only, each notified only when it changes):
 *   "name"       (string)   its name in the workspace (predicted while it is
 *                           copied; the real one if something took that)
 *   "original"   (string)   the host path it was added from, or NULL
 *   "profile"    (RkFileProfile, boxed) NULL while busy
 *   "estimate"   (RkFileProfile, boxed) a big CSV's profile from its sample,
 *                           rows estimated, while it is read; else NULL
 *   "progress"   (double)   how much the profiler has read, 0 to 1; -1 not known
 *   "state"      (RkConversationFileState, RK_TYPE_CONVERSATION_FILE_STATE)
 *   "copied"     (gboolean) it was copied into the workspace (and not removed)
 */

G_END_DECLS
