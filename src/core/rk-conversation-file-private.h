/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation-file-private.h — what RkConversation changes of its
 * files: the properties (each setter notifies on change only) and its own
 * bookkeeping for the file's work. */
#pragma once

#include "rk-conversation-file.h"

G_BEGIN_DECLS

struct _RkConversationFile
{
  GObject                  parent_instance;

  char                    *name;
  char                    *original;
  RkFileProfile           *profile;
  RkFileProfile           *estimate;
  double                   progress;
  RkConversationFileState  state;
  gboolean                 copied;

  /* RkConversation's own: */
  guint                    entry_id;     /* its RK_ENTRY_ATTACHMENT */
  GCancellable            *cancellable;  /* its copy or reading */
  RkProfileHeader          header;       /* the reading chosen over the profiler's */
  int                      skip_lines;   /* guess (rk_conversation_reprofile); -1: detect */
};

RkConversationFile *_rk_conversation_file_new          (const char              *name,
                                                        const char              *original);
void                _rk_conversation_file_set_name     (RkConversationFile      *self,
                                                        const char              *name);
void                _rk_conversation_file_set_state    (RkConversationFile      *self,
                                                        RkConversationFileState  state);
void                _rk_conversation_file_set_copied   (RkConversationFile      *self,
                                                        gboolean                 copied);
/* Takes @profile; the estimate and the progress go with it. */
void                _rk_conversation_file_take_profile (RkConversationFile      *self,
                                                        RkFileProfile           *profile);
void                _rk_conversation_file_take_estimate (RkConversationFile     *self,
                                                        RkFileProfile           *estimate);
void                _rk_conversation_file_set_progress (RkConversationFile      *self,
                                                        double                   progress);

G_END_DECLS
