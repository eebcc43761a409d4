#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-flatpak-manifest.py — the Flatpak manifest cannot drift from the
native build: every Debian package the native build uses is accounted for
(a module of the manifest at the same upstream version, part of the GNOME
runtime, or a tool only the native build and its tests need), every archive
is pinned by sha256, finish-args stay narrow, and flatpak-builder parses the
manifest with no unknown key. Speaks TAP; lists the checksums not verified."""
import json
import os
import re
import shutil
import subprocess
import sys

root = os.environ.get("RECKON_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
manifest_path = os.path.join(root, "flatpak", "io.github.reckon.Reckon.json")
packages_path = os.path.join(root, ".ci", "debian-packages.txt")

# Debian package -> manifest module built from the same upstream version.
AS_MODULE = {
    "python3-numpy": "numpy", "python3-pandas": "pandas",
    "python3-matplotlib": "matplotlib", "python3-openpyxl": "openpyxl",
    "python3-odf": "odfpy", "python3-xlrd": "xlrd", "python3-pypdf": "pypdf",
    "python3-defusedxml": "defusedxml", "poppler-utils": "poppler-utils",
    "libcmark-gfm-dev": "cmark-gfm", "libcmark-gfm-extensions-dev": "cmark-gfm",
    "libseccomp-dev": "libseccomp",
    "python3-dask": "dask",
}
# Provided by org.gnome.Platform/Sdk (GNOME 46, freedesktop-sdk 23.08).
IN_RUNTIME = {
    "build-essential", "meson", "ninja-build", "pkg-config", "gettext",
    "libglib2.0-dev", "libgtk-4-dev", "libadwaita-1-dev", "libsoup-3.0-dev",
    "libjson-glib-dev", "libgtksourceview-5-dev", "libsecret-1-dev",
    "zlib1g-dev", "libpng-dev", "libpango1.0-dev", "libcairo2-dev",
    "python3", "fonts-dejavu-core", "shared-mime-info",
}
# Only the native build's tests and tools use these; a Flatpak needs none.
NATIVE_ONLY_PREFIXES = ("libarchive-dev", "xvfb", "xauth", "dbus", "gnome-keyring", "at-spi2-core",
                        "python3-pyatspi", "python3-dogtail", "imagemagick",
                        "appstream", "desktop-file-utils", "libgtk-4-bin",
                        "bubblewrap", "hyperfine", "clang", "libclang-rt",
                        "diffutils", "passwd", "python3-nbformat", "python3-nbclient",
                        "python3-ipykernel", "python3-nbconvert", "patch",
                        "flatpak-builder", "chromium", "strace", "gnome-text-editor",
                        "gtk-4-examples", "python3-scipy", "python3-statsmodels",
                        "r-base", "r-cran", "r-recommended", "python3-sklearn",
                        "python3-seaborn", "python3-vega", "python3-bokeh", "iso-codes",
                        "distro-info-data", "python3-pip", "poppler-data",
                        "libreoffice", "gnumeric", "python3-pytest", "xdotool",
                        "python3-xlsxwriter", "python3-pygal", "postgresql", "tzdata",
                        "python3-astropy", "python3-plotly", "python3-nltk",
                        "python3-gi", "gir1.2-", "unicode-data", "locales", "python3-distributed",
                        "libreoffice-calc", "python3-networkx", "python3-vincent")

results = []
def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))

manifest = json.load(open(manifest_path))
modules = {m["name"]: m for m in manifest["modules"] if isinstance(m, dict)}
packages = [l.strip() for l in open(packages_path) if l.strip() and not l.lstrip().startswith("#")]

def debian_version(pkg):
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout:
        return None
    v = p.stdout.split(":", 1)[-1]               # epoch
    v = v.rsplit("-", 1)[0]                      # Debian revision
    return re.sub(r"[+~](dfsg|ds|repack)\d*$", "", v)

unaccounted = [p for p in packages
               if p not in AS_MODULE and p not in IN_RUNTIME and not p.startswith(NATIVE_ONLY_PREFIXES)]
check("every native package is a module, in the runtime, or native-only", not unaccounted,
      "not accounted for: " + ", ".join(unaccounted))

for pkg, mod in sorted(AS_MODULE.items()):
    if pkg not in packages:
        continue
    m = modules.get(mod)
    if m is None:
        check(f"{pkg} is the module {mod}", False, "no such module")
        continue
    want = debian_version(pkg)
    have = m.get("x-version")
    if want is None:
        check(f"{mod} {have} matches the native {pkg}", False, f"{pkg} is not installed")
    else:
        check(f"{mod} {have} matches the native {pkg} {want}", have == want, f"manifest {have}, Debian {want}")

unverified = []
for m in manifest["modules"]:
    for s in m.get("sources", []):
        if s.get("type") not in ("archive", "file"):
            continue
        ok = bool(re.fullmatch(r"[0-9a-f]{64}", s.get("sha256", ""))) and bool(s.get("x-checksum-source"))
        check(f"{m['name']}: pinned by sha256 with its provenance", ok, s.get("url", ""))
        if not s.get("x-checksum-verified"):
            unverified.append(f"{m['name']}: {s.get('x-checksum-source')}")

args = manifest.get("finish-args", [])
wide = [a for a in args if a.startswith(("--filesystem", "--socket=session-bus", "--socket=system-bus",
                                          "--talk-name=org.freedesktop.Flatpak", "--device=all"))]
check("finish-args grant no files, buses or devices beyond DRI", not wide, " ".join(wide))
check("finish-args: Wayland with X11 fallback, DRI, IPC",
      {"--socket=wayland", "--socket=fallback-x11", "--device=dri", "--share=ipc"} <= set(args), args)
check("reckon is built with meson", modules.get("reckon", {}).get("buildsystem") == "meson")

builder = shutil.which("flatpak-builder")
skip_builder = None
if builder is None:
    skip_builder = "flatpak-builder is not installed"
else:
    # Unknown keys are only warnings: make them fatal. G_ENABLE_DIAGNOSTIC
    # (set by the test environment) would also turn flatpak-builder's own use
    # of its deprecated properties into warnings, so leave it out.
    env = dict(os.environ, G_DEBUG="fatal-warnings")
    env.pop("G_ENABLE_DIAGNOSTIC", None)
    p = subprocess.run([builder, "--show-manifest", manifest_path], capture_output=True, text=True, env=env)
    check("flatpak-builder --show-manifest parses it with no unknown key", p.returncode == 0, p.stderr.strip()[-400:])

n = len(results) + (1 if skip_builder else 0)
print(f"1..{n}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        print(f"# {detail}")
if skip_builder:
    print(f"ok {n} # SKIP {skip_builder}")
print(f"# {len(unverified)} checksums are not verified by a download here:")
for u in unverified:
    print(f"#   {u}")
sys.exit(0)
