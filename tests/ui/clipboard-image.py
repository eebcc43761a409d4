#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""clipboard-image.py PATH — reads the image on the clipboard of the display
(as another app pasting it would) and writes it to PATH as PNG; prints the
clipboard's formats and the image's size, or "no image"."""
import sys

import gi
gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

Gtk.init()
clipboard = Gdk.Display.get_default().get_clipboard()
loop = GLib.MainLoop()
result = {}


def done(source, res):
    try:
        texture = source.read_texture_finish(res)
        if texture is not None:
            texture.save_to_png(sys.argv[1])
            result["size"] = f"{texture.get_width()}x{texture.get_height()}"
    except GLib.Error as e:
        result["error"] = e.message
    loop.quit()


print("formats:", clipboard.get_formats().to_string())
clipboard.read_texture_async(None, done)
GLib.timeout_add_seconds(20, loop.quit)
loop.run()
print("size:", result.get("size", "no image"), result.get("error", ""))
