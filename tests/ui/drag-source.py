# SPDX-License-Identifier: GPL-3.0-or-later
"""drag-source.py FILE... — a small GTK 4 window that offers FILEs as a file
list when dragged, the way Files does: what test-drop.py drags onto Reckon
with the X pointer (a real XDND drop, not a call into the app)."""
import sys

import gi
gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, Gio, GObject, Gtk  # noqa: E402

paths = sys.argv[1:]


def on_prepare(source, x, y):
    files = [Gio.File.new_for_path(p) for p in paths]
    value = GObject.Value(Gdk.FileList, Gdk.FileList.new_from_list(files))
    return Gdk.ContentProvider.new_for_value(value)


def on_activate(app):
    win = Gtk.ApplicationWindow(application=app, title="Drag source")
    win.set_default_size(200, 120)
    label = Gtk.Label(label=f"{len(paths)} files")
    drag = Gtk.DragSource()
    drag.set_actions(Gdk.DragAction.COPY)
    drag.connect("prepare", on_prepare)
    label.add_controller(drag)
    win.set_child(label)
    win.present()
    print("ready", flush=True)


app = Gtk.Application(application_id="io.github.reckon.TestDragSource",
                      flags=Gio.ApplicationFlags.NON_UNIQUE)
app.connect("activate", on_activate)
app.run([sys.argv[0]])
