# SPDX-License-Identifier: GPL-3.0-or-later
"""How to read a file: chosen once by the profiler, replayed by reckon.load.

detect(path) looks at a file (untrusted: this runs inside reckon-sandbox)
and returns a "reading": a small JSON-able dict saying how to read it (format,
compression, encoding, delimiter, quoting, header, skipped lines, decimal
mark, date columns and their formats, sheets). read(path, reading) replays
it and returns a DataFrame (or a dict of them for a workbook with several
sheets). The profiler computes its statistics from what read() returns, so
what the user sees in the profile is what the code gets.
"""

import bz2
import csv
import datetime
import gzip
import io
import json
import lzma
import os
import re
import warnings
import zipfile

SNIFF_BYTES = 256 * 1024
SNIFF_ROWS = 200
MAX_UNPACKED = 1 << 30         # bytes a compressed file may unpack to
MAX_ZIP_MEMBERS = 10000
MAX_SHEET_ROWS = 200000        # rows of a sheet kept by the profiler
MAX_TABLE_COLUMNS = 16384      # as many as a spreadsheet has
READING_VERSION = 1
READINGS_DIR = os.path.join(".reckon", "readings")
MAX_NOTE = 200

ERR_UNPACKED = ("This compressed file unpacks to more than %d MB, so it was not read."
                % (MAX_UNPACKED // (1 << 20)))
ERR_DAMAGED_ARCHIVE = "This compressed file is damaged, so it could not be read."


class ReadError(Exception):
    """An error whose message is the one sentence the user sees."""


# -- compression ----------------------------------------------------------

def compression_of(head):
    """The compression a file's first bytes announce, or None."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"BZh") and head[3:4] in b"123456789" and len(head) > 3:
        return "bz2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    return None


def zip_single_member(path):
    """The one file a ZIP archive holds (folders and macOS resource forks
    aside). Raises ReadError when it holds none, several, or is damaged."""
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_ZIP_MEMBERS:
                raise ReadError("This ZIP archive holds more than %d files; Reckon reads a ZIP "
                                "only when it holds one table." % MAX_ZIP_MEMBERS)
            files = [i for i in infos if not i.is_dir() and not i.filename.startswith("__MACOSX/")
                     and not os.path.basename(i.filename).startswith("._")]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        raise ReadError(ERR_DAMAGED_ARCHIVE)
    if not files:
        raise ReadError("This ZIP archive is empty.")
    if len(files) > 1:
        raise ReadError("This ZIP archive holds %d files; Reckon reads a ZIP only when it holds one "
                        "table, so unpack it and add the files you need." % len(files))
    info = files[0]
    if info.flag_bits & 0x1:
        raise ReadError("This ZIP archive is encrypted with a password, so it could not be read.")
    return info.filename


class _Capped(io.RawIOBase):
    """A stream that refuses to give more than @limit bytes: a small
    compressed file cannot unpack to fill the sandbox's memory or time."""

    def __init__(self, f, limit, owner=None):
        self._f = f
        self._owner = owner
        self._left = limit

    def readable(self):
        return True

    def readinto(self, b):
        try:
            n = self._f.readinto(b)
        except (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError, ValueError) as e:
            if isinstance(e, ReadError):
                raise
            raise ReadError(ERR_DAMAGED_ARCHIVE)
        if n is None:
            return None
        self._left -= n
        if self._left < 0:
            raise ReadError(ERR_UNPACKED)
        return n

    def close(self):
        try:
            self._f.close()
            if self._owner is not None:
                self._owner.close()
        finally:
            super().close()


def open_unpacked(path, compression, member=None, limit=MAX_UNPACKED):
    """A buffered binary stream of the file's bytes, unpacked and capped."""
    if compression is None:
        return open(path, "rb")
    owner = None
    if compression == "gzip":
        f = gzip.open(path, "rb")
    elif compression == "bz2":
        f = bz2.open(path, "rb")
    elif compression == "xz":
        f = lzma.open(path, "rb")
    elif compression == "zip":
        owner = zipfile.ZipFile(path)
        try:
            f = owner.open(member)
        except (KeyError, zipfile.BadZipFile, NotImplementedError, RuntimeError):
            owner.close()
            raise ReadError(ERR_DAMAGED_ARCHIVE)
    else:
        raise ReadError("This file uses an unknown compression.")
    return io.BufferedReader(_Capped(f, limit, owner), 1 << 20)


def read_head(path, compression=None, member=None, n=SNIFF_BYTES):
    with open_unpacked(path, compression, member) as f:
        return f.read(n)


# -- encodings ------------------------------------------------------------

def detect_encoding(head, complete=False):
    """Returns (python codec, label for people). @complete: @head is the
    whole file (a multibyte sequence cut at its end is then not UTF-8)."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", "UTF-8 (with BOM)"
    if head.startswith(b"\xff\xfe") or head.startswith(b"\xfe\xff"):
        return "utf-16", "UTF-16"
    try:
        head.decode("utf-8")
        return "utf-8", "UTF-8"
    except UnicodeDecodeError as e:
        if not complete and e.start >= len(head) - 3:
            return "utf-8", "UTF-8"
    try:
        head.decode("cp1252")
        return "cp1252", "Windows-1252"
    except UnicodeDecodeError:
        return "latin-1", "Latin-1"


ENCODING_LABELS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 (with BOM)", "utf-16": "UTF-16",
                   "cp1252": "Windows-1252", "latin-1": "Latin-1"}


def sample_text(raw, codec, complete):
    text = raw.decode(codec, errors="replace")
    if not complete:
        # Cut at the last line break so no row is half read.
        cut = text.rfind("\n")
        if cut > 0:
            text = text[:cut + 1]
    return text


# -- cell shapes ----------------------------------------------------------

NUM_RE = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")
INT_RE = re.compile(r"^\s*[-+]?\d+\s*$")
COMMA_DECIMAL_RE = re.compile(r"^\s*[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+\s*$")
DOT_DECIMAL_RE = re.compile(r"^\s*[-+]?\d+\.\d+\s*$")
NA_STRINGS = {"", "na", "n/a", "nan", "null", "none", "-", "?", "#n/a", ".", "NA"}

# Date formats tried on a column, most specific first. Each has a label
# for people (what the profile and the card show).
DATE_FORMATS = [
    ("%Y-%m-%d", "year-month-day (2012-01-31)"),
    ("%Y-%m-%d %H:%M:%S", "year-month-day time (2012-01-31 13:45:00)"),
    ("%Y-%m-%dT%H:%M:%S", "ISO 8601 (2012-01-31T13:45:00)"),
    ("%Y-%m-%d %H:%M", "year-month-day time (2012-01-31 13:45)"),
    ("%Y-%m-%dT%H:%M", "ISO 8601 (2012-01-31T13:45)"),
    ("%Y/%m/%d", "year/month/day (2012/01/31)"),
    ("%Y/%m/%d %H:%M", "year/month/day time (2012/01/31 13:45)"),
    ("%Y/%m/%d %H:%M:%S", "year/month/day time (2012/01/31 13:45:00)"),
    ("%d/%m/%Y", "day/month/year (31/01/2012)"),
    ("%m/%d/%Y", "month/day/year (01/31/2012)"),
    ("%d.%m.%Y", "day.month.year (31.01.2012)"),
    ("%d-%m-%Y", "day-month-year (31-01-2012)"),
    ("%d/%m/%y", "day/month/year (31/01/12)"),
    ("%m/%d/%y", "month/day/year (01/31/12)"),
    ("%d.%m.%y", "day.month.year (31.01.12)"),
    ("%b %d %Y", "month name day year (Jan 31 2012)"),
    ("%b %d, %Y", "month name day, year (Jan 31, 2012)"),
    ("%B %d, %Y", "month name day, year (January 31, 2012)"),
    ("%B %d %Y", "month name day year (January 31 2012)"),
    ("%d %b %Y", "day month name year (31 Jan 2012)"),
    ("%d %B %Y", "day month name year (31 January 2012)"),
    ("%d-%b-%y", "day-month name-year (31-Jan-12)"),
    ("%d-%b-%Y", "day-month name-year (31-Jan-2012)"),
    ("%b-%d-%Y", "month name-day-year (Jan-31-2012)"),
    ("%d/%b/%Y", "day/month name/year (31/Jan/2012)"),
    ("%Y-%m", "year-month (2012-01)"),
    ("%b %Y", "month name year (Jan 2012)"),
    ("%B %Y", "month name year (January 2012)"),
]
_DATEISH = re.compile(r"^\s*(\d{1,4}[-/.]\d{1,2}([-/.]\d{1,4})?([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?"
                      r"|\d{1,2}[- /][A-Za-z]{3,9}[- /]\d{2,4}"
                      r"|[A-Za-z]{3,9}[- ]\d{1,2},?[- ]\d{4}"
                      r"|[A-Za-z]{3,9} \d{4})\s*$")


ISO_FORMATS = ("%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M")


def date_format_of(values):
    """The first format of DATE_FORMATS that reads every value, or None.
    Day-first and month-first both reading everything: day-first is kept
    only when some value has a day above 12, else month-first (the order a
    US file would use is ambiguous; the profile says which was chosen)."""
    vals = [v.strip() for v in values if v is not None and v.strip() and v.strip().lower() not in NA_STRINGS]
    if len(vals) < 1 or not all(_DATEISH.match(v) for v in vals):
        return None
    fits = []
    for fmt, label in DATE_FORMATS:
        try:
            for v in vals:
                datetime.datetime.strptime(v, fmt)
        except ValueError:
            continue
        fits.append((fmt, label))
    if not fits:
        return None
    fmts = [f for f, _ in fits]
    for a, b in (("%d/%m/%Y", "%m/%d/%Y"), ("%d/%m/%y", "%m/%d/%y")):
        if a in fmts and b in fmts:
            # Nothing tells them apart: month first, as most software writes it.
            return fits[fmts.index(b)] + (True,)
    return fits[0] + (False,)


def _is_num(s, decimal="."):
    if decimal == ",":
        return bool(COMMA_DECIMAL_RE.match(s) or INT_RE.match(s))
    return bool(NUM_RE.match(s))


def _shape(s):
    """A cell's shape: runs of upper-case, lower-case letters and digits
    collapsed ("Europe/Andorra" -> "Ul/Ul", "+4230+00131" -> "+9+9")."""
    out = []
    for ch in s.strip():
        if ch.isdigit():
            c = "9"
        elif ch.isupper():
            c = "U"
        elif ch.isalpha():
            c = "l"
        elif ch.isspace():
            c = " "
        else:
            c = ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


# -- delimiters and header ------------------------------------------------

WHITESPACE = " "
DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {"comma": ",", "semicolon": ";", "tab": "\t", "pipe": "|", "space": WHITESPACE,
                   "whitespace": WHITESPACE}


def _split_rows(lines, delim, quotechar='"', quoting=csv.QUOTE_MINIMAL, skipinitialspace=False):
    if delim == WHITESPACE:
        rows = []
        for line in lines:
            if quotechar == "'":
                cells = [c[1:-1] if len(c) > 1 and c[0] == c[-1] == "'" else c for c in line.split()]
            else:
                cells = line.split()
            rows.append(cells)
        return rows
    try:
        return list(csv.reader(io.StringIO("".join(lines)), delimiter=delim, quotechar=quotechar,
                               quoting=quoting, skipinitialspace=skipinitialspace, strict=False))
    except csv.Error:
        return [line.rstrip("\r\n").split(delim) for line in lines]


def _consistency(rows):
    widths = [len(r) for r in rows if r and any(c.strip() for c in r)]
    if not widths:
        return 0, 0.0
    mode = max(set(widths), key=lambda w: (widths.count(w), w))
    return mode, widths.count(mode) / len(widths)


def _sniff_delimiter(lines, forced=None):
    """Returns (delimiter, quoting) for the table lines (no comments)."""
    if forced is not None:
        return forced
    best, best_score = None, -1.0
    for delim in DELIMITERS + (WHITESPACE,):
        rows = _split_rows(lines[:SNIFF_ROWS], delim)
        mode, consistency = _consistency(rows)
        if mode < 2:
            continue
        score = consistency * 10 + min(mode, 50) / 50.0
        if delim == WHITESPACE:
            # Prose splits at spaces too: a space-separated table must be
            # very regular and mostly numbers.
            cells = [c for r in rows for c in r]
            numeric = sum(1 for c in cells if _is_num(c)) / max(1, len(cells))
            if consistency < 0.9 or numeric < 0.5:
                continue
            score -= 1.0
        if score > best_score:
            best, best_score = delim, score
    return best


def _header_votes(first, body, decimal):
    """Evidence that @first names the columns of @body: > 0 a header, < 0
    data. Returns (votes, year_run)."""
    votes = 0
    year_cols = _year_run(first)
    for j, cell in enumerate(first):
        col = [r[j].strip() for r in body if j < len(r) and r[j].strip()
               and r[j].strip().lower() not in NA_STRINGS]
        cell = cell.strip()
        if not cell or not col:
            continue
        body_num = sum(1 for v in col if _is_num(v, decimal)) / len(col)
        if _is_num(cell, decimal):
            if j in year_cols and not all(INT_RE.match(v) and 1000 <= int(v) <= 2999 for v in col):
                votes += 1
            elif body_num >= 0.5:
                votes -= 1
            continue
        if date_format_of([cell]) is not None:
            votes -= 1 if date_format_of(col[:50]) else 0
            continue
        if body_num >= 0.5:
            votes += 2      # a name over numbers: the strongest sign
            continue
        if any(ch.isdigit() for ch in cell):
            # A code such as "0000..007F" over codes with the same characters.
            chars = set("".join(col[:SNIFF_ROWS]))
            with_digits = sum(1 for v in col if any(ch.isdigit() for ch in v)) / len(col)
            if with_digits >= 0.6 and set(cell) <= chars:
                votes -= 1
                continue
        shapes = [_shape(v) for v in col[:SNIFF_ROWS]]
        mode = max(set(shapes), key=shapes.count)
        share = shapes.count(mode) / len(shapes)
        lengths = set(len(v) for v in col[:SNIFF_ROWS])
        if share >= 0.6 and _shape(cell) == mode:
            structured = any(not ch.isalpha() and ch != " " for ch in mode) or len(lengths) == 1
            if structured and (len(lengths) > 1 or len(cell) in lengths):
                votes -= 1
        elif share >= 0.6 or (len(lengths) == 1 and len(cell) not in lengths):
            votes += 1
        if cell in col and len(set(col)) < len(col) / 2:
            votes -= 1      # a value that repeats below is data, not a name
    return votes, year_cols


def _year_run(cells):
    """Indexes of the cells in runs of >= 3 year-like integers (1000-2999)
    increasing by one step: column names such as 1960, 1961, 1962."""
    out = set()
    run = []
    prev_step = None
    for j, c in enumerate(cells + [""]):
        c = c.strip()
        y = int(c) if INT_RE.match(c) and 1000 <= int(c) <= 2999 else None
        if y is not None and run and y - run[-1][1] > 0 and (prev_step is None or y - run[-1][1] == prev_step):
            prev_step = y - run[-1][1]
            run.append((j, y))
            continue
        if len(run) >= 3:
            out.update(i for i, _ in run)
        run = [(j, y)] if y is not None else []
        prev_step = None
    return out


def _metadata_line(rows, total_rows):
    """Is rows[0] a line of counts such as scikit-learn's "150,4,setosa,..."
    or "506,13,,,": the number of rows and columns that follow?"""
    if len(rows) < 2:
        return False
    first = [c.strip() for c in rows[0]]
    if len(first) < 2 or not INT_RE.match(first[0]) or not INT_RE.match(first[1]):
        return False
    n, m = int(first[0]), int(first[1])
    width = _consistency(rows[1:])[0]
    if m not in (width, width - 1):
        return False
    # The row count: exact when the whole file was sampled.
    return total_rows is not None and n in (total_rows - 1, total_rows - 2)


def _sparse_line(row, width):
    """A title or metadata line: far fewer filled cells than the table."""
    filled = sum(1 for c in row if c.strip())
    return width >= 3 and filled <= max(1, width // 3)


# -- detection of text tables ----------------------------------------------

def _note(reading, text):
    reading.setdefault("notes", []).append(text[:MAX_NOTE * 2])


def _unsure(reading, what, chose, alternative, sentence):
    reading.setdefault("unsure", []).append({"what": what, "chose": chose, "alternative": alternative,
                                             "note": sentence})


def _show_line(s):
    s = s.rstrip("\r\n")
    return s if len(s) <= 60 else s[:59] + "…"


def detect_text_table(raw, complete, kind, options=None, compression=None, member=None, strict=False):
    """The reading of a delimited text file from its first bytes @raw
    (unpacked). @complete: @raw is the whole file. @strict: only when it
    clearly is a table (for .txt files); returns None otherwise."""
    options = options or {}
    codec, _label = detect_encoding(raw, complete)
    text = sample_text(raw, codec, complete)
    lines = text.splitlines(keepends=True)
    reading = {"version": READING_VERSION, "format": "csv", "encoding": codec}
    plain = raw.replace(b"\r\n", b"")
    if b"\n\r" in plain or (b"\r" in plain and b"\n" in plain):
        reading["newlines"] = "mixed"
    if compression:
        reading["compression"] = compression
        if member:
            reading["member"] = member

    skipped = []
    skip = 0
    # Excel's "sep=;" first line names the delimiter and is not data.
    m = re.match(r"^\ufeff?sep=(.)\r?\n?$", lines[0]) if lines else None
    forced = options.get("delimiter")
    if m:
        forced = forced or m.group(1)
        skipped.append({"line": 1, "text": _show_line(lines[0]), "why": "delimiter line (sep=)"})
        skip = 1
    forced_skip = options.get("skip")
    if forced_skip is not None:
        skip = max(0, min(int(forced_skip), len(lines)))
        skipped = [{"line": i + 1, "text": _show_line(lines[i]), "why": "your choice"}
                   for i in range(min(skip, 10)) if lines[i].strip()]
    # Comment lines (and blank lines) before the table.
    comments = 0
    while forced_skip is None and skip < len(lines) and (lines[skip].lstrip().startswith("#")
                                                         or not lines[skip].strip()):
        if lines[skip].strip():
            comments += 1
            if comments <= 10:
                skipped.append({"line": skip + 1, "text": _show_line(lines[skip]), "why": "comment"})
        skip += 1
    body_lines = lines[skip:]
    # Comment lines further down too, and comments at the end of lines
    # ("0009..000D ; White_Space # Cc", as Unicode's files write them): only
    # when "#" never appears inside a line otherwise, so no data is cut.
    comment = None
    later = [l for l in body_lines if l.lstrip().startswith("#")]
    if later or (skipped and any(s["why"] == "comment" for s in skipped)):
        data = [l for l in body_lines if l.strip() and not l.lstrip().startswith("#")]
        with_hash = [l for l in data if "#" in l]
        trailing = [l for l in with_hash if re.search(r"\s#(\s|$)", l)]
        if not with_hash or (len(trailing) == len(with_hash) and len(trailing) >= 0.8 * len(data)):
            comment = "#"
    table_lines = [l for l in body_lines if l.strip() and not (comment and l.lstrip().startswith("#"))]
    if not table_lines:
        if strict:
            return None
        raise ReadError("This file holds no rows of data.")

    delim = _sniff_delimiter(table_lines, forced)
    if delim is None:
        if strict:
            return None
        delim = ","
    whitespace = delim == WHITESPACE

    # Quoting: quote marks that do not enclose fields (a stray " in a TSV)
    # would make a csv reader merge lines; then they are plain text.
    quotechar, quoting = '"', csv.QUOTE_MINIMAL
    first_cells = [c.strip() for c in (table_lines[0].split() if whitespace
                                        else table_lines[0].rstrip("\r\n").split(delim))]
    if sum(1 for c in first_cells if len(c) > 1 and c[0] == c[-1] == "'") >= max(1, len(first_cells) * 0.8):
        quotechar = "'"
    if not whitespace:
        minimal = _split_rows(table_lines[:SNIFF_ROWS], delim, quotechar)
        plain = [l.rstrip("\r\n").split(delim) for l in table_lines[:SNIFF_ROWS]]
        merged = any("\n" in c for r in minimal for c in r)
        stray = any(quotechar in c for r in minimal for c in r)
        if merged or stray:
            mmode, mcons = _consistency(minimal)
            pmode, pcons = _consistency(plain)
            if pmode >= 2 and pcons >= mcons and (len(minimal) < len(plain) or stray and pcons > mcons):
                quoting = csv.QUOTE_NONE
                _note(reading, "Quote marks in this file are part of the text (they do not enclose "
                               "fields), so they were read as they are.")
    skipinitialspace = False
    rows = _split_rows(table_lines[:SNIFF_ROWS], delim, quotechar, quoting)
    if not whitespace:
        cells = [c for r in rows[1:] for c in r[1:]]
        if cells and sum(1 for c in cells if c.startswith(" ")) >= 0.5 * len(cells):
            skipinitialspace = True
            rows = _split_rows(table_lines[:SNIFF_ROWS], delim, quotechar, quoting, True)
    # Cells padded with spaces to line up ("0009..000D    ; White_Space"):
    # the padding is not part of the value.
    strip = False
    if not whitespace:
        cells = [c for r in rows[:SNIFF_ROWS] for c in r if c.strip()]
        if cells and sum(1 for c in cells if c != c.strip()) >= 0.3 * len(cells):
            strip = True
            rows = [[c.strip() for c in r] for r in rows]
    rows = [r for r in rows if r and any(c.strip() for c in r)]
    if not rows:
        if strict:
            return None
        raise ReadError("This file holds no rows of data.")
    width, consistency = _consistency(rows)
    if strict and (width < 2 or consistency < 0.8 or len(rows) < 3):
        return None
    if max(len(r) for r in rows) > MAX_TABLE_COLUMNS:
        # Spreadsheets stop at 16,384 columns; past that, reading (and
        # pandas' naming of repeated column names) only costs time.
        raise ReadError("This table has more than %d columns, more than Reckon reads." % MAX_TABLE_COLUMNS)

    # Decimal comma: ;- or tab-separated numbers written 1.234,5.
    decimal = "."
    if delim != ",":
        comma = sum(1 for r in rows[1:] for c in r if COMMA_DECIMAL_RE.match(c))
        dot = sum(1 for r in rows[1:] for c in r if DOT_DECIMAL_RE.match(c))
        if comma > dot:
            decimal = ","

    # A metadata or title line before the header (or the data).
    total_rows = len(table_lines) if complete else None
    metadata = 0
    if len(rows) >= 3 and options.get("header") is None and forced_skip is None:
        if _metadata_line(rows, total_rows):
            metadata = 1
            why = "metadata (counts of rows and columns)"
        elif _sparse_line(rows[0], width) and not _sparse_line(rows[1], width):
            metadata = 1
            why = "metadata or title"
        if metadata:
            line_no = skip + body_lines.index(table_lines[0]) + 1
            skipped.append({"line": line_no, "text": _show_line(table_lines[0]), "why": why})
            _unsure(reading, "metadata", "skipped", "kept",
                    "Line %d (%s) looks like %s, not part of the table, so it was skipped; "
                    "if it is data, profile again keeping it." % (line_no, _show_line(table_lines[0]), why))
            rows = rows[1:]
            table_lines = table_lines[1:]
    skip_lines = skip + (body_lines.index(table_lines[0]) if table_lines[0] in body_lines else 0)

    # The header.
    forced_header = options.get("header")
    votes, _years = _header_votes(rows[0], rows[1:], decimal) if len(rows) > 1 else (1, set())
    if forced_header is not None:
        header = bool(forced_header)
    elif len(rows) == 1:
        header = all(not _is_num(c, decimal) for c in rows[0])
    else:
        names = [c.strip() for c in rows[0] if c.strip()]
        distinct = len(set(names)) == len(names) and len(names) > 0
        if votes > 0:
            header = distinct or votes >= 2
        elif votes < 0:
            header = False
        else:
            header = distinct and all(not _is_num(c, decimal) for c in rows[0])
            if header or distinct:
                _unsure(reading, "header", header, not header,
                        "It is not clear whether the first row (%s) names the columns; it was read as %s. "
                        "Profile again with the other choice if that is wrong."
                        % (_show_line(table_lines[0]), "the header" if header else "data"))
    body = rows[1:] if header else rows

    # Date columns, by their written form in the sample.
    dates = []
    ncols = max(len(rows[0]) if rows else 0, width)
    for j in range(ncols):
        col = [r[j] for r in body if j < len(r)]
        fmt = date_format_of(col) if col else None
        if fmt is None or all(INT_RE.match(v) for v in col if v.strip()):
            continue
        entry = {"column": j, "format": fmt[0], "label": fmt[1]}
        if fmt[2]:
            entry["ambiguous"] = True
            _unsure(reading, "date", fmt[0], "%d/%m/%Y" if "%Y" in fmt[0] else "%d/%m/%y",
                    "Column %d has dates such as %s where day and month cannot be told apart; they were "
                    "read month first." % (j + 1, _show_line(col[0])))
        dates.append(entry)

    reading.update(delimiter=delim, header=header, skip_lines=skip_lines, decimal=decimal)
    if whitespace:
        reading["whitespace"] = True
    if quotechar != '"':
        reading["quotechar"] = quotechar
    if quoting == csv.QUOTE_NONE:
        reading["quoting"] = "none"
    if skipinitialspace:
        reading["skipinitialspace"] = True
    if strip:
        reading["strip"] = True
    if comment:
        reading["comment"] = comment
    if decimal == ",":
        reading["thousands"] = "."
    if skipped:
        reading["skipped"] = skipped[:12]
    if comments:
        reading["comment_lines"] = comments
    if dates:
        reading["dates"] = dates
    return reading


# -- replay ---------------------------------------------------------------

def csv_options(reading, path):
    """pandas.read_csv arguments for a reading (a dict; no file argument)."""
    # compression=None: the bytes are unpacked already (or never were
    # packed), whatever the name ends with (pandas would guess from it).
    opts = dict(encoding=reading.get("encoding", "utf-8"), engine="c", skip_blank_lines=True,
                low_memory=False, compression=None)
    if reading.get("whitespace"):
        opts["delim_whitespace"] = True
    else:
        opts["sep"] = reading.get("delimiter", ",")
    header = reading.get("header", True)
    skip = int(reading.get("skip_lines", 0))
    names = reading.get("names")
    if names:
        opts.update(header=None, names=list(names), skiprows=skip + (1 if header else 0))
    else:
        opts.update(header=0 if header else None, skiprows=skip)
    if reading.get("decimal", ".") != ".":
        opts["decimal"] = reading["decimal"]
    if reading.get("thousands"):
        opts["thousands"] = reading["thousands"]
    if reading.get("quotechar", '"') != '"':
        opts["quotechar"] = reading["quotechar"]
    if reading.get("quoting") == "none":
        opts["quoting"] = csv.QUOTE_NONE
    if reading.get("skipinitialspace"):
        opts["skipinitialspace"] = True
    if reading.get("comment"):
        opts["comment"] = reading["comment"]
    return opts


def dedupe_names(names):
    seen = {}
    out = []
    for i, n in enumerate(names):
        n = (str(n).strip() if n is not None else "") or "column %d" % (i + 1)
        base = n
        k = seen.get(base, 0)
        while n in seen:
            k += 1
            n = "%s.%d" % (base, k)
        seen[base] = k
        seen[n] = 0
        out.append(n)
    return out


def _csv_source(path, reading):
    comp = reading.get("compression")
    if reading.get("newlines") == "mixed":
        # Line ends such as "\n\r" make pandas 1.5's C tokenizer loop until
        # it runs out of memory: Python's universal newlines read them.
        return io.TextIOWrapper(open_unpacked(path, comp, reading.get("member")),
                                encoding=reading.get("encoding", "utf-8"), newline=None)
    if comp is None:
        return path
    return open_unpacked(path, comp, reading.get("member"))


def read_csv(path, reading, nrows=None, raw=False, lean=True):
    """The table of a delimited text file, as its reading says. @raw: every
    cell as the string written (for showing the first rows). @lean: the
    dtypes the reading records (or, for a big file without a record, those
    the first chunk suggests; see choose_dtypes), and a big file read in
    chunks, so that the peak memory stays near the size of the result."""
    import pandas as pd

    opts = csv_options(reading, path)
    if nrows is not None:
        opts["nrows"] = nrows
    if raw:
        opts.update(dtype=str, keep_default_na=False, low_memory=True)
        opts.pop("thousands", None)
        lean = False
    else:
        # ISO dates: pandas' own fast path while reading; other formats are
        # converted after, with their recorded format.
        iso = [d["column"] for d in reading.get("dates", ())
               if isinstance(d.get("column"), int) and d.get("format") in ISO_FORMATS]
        if iso:
            opts["parse_dates"] = iso
        # The others are read as text: with thousands="." a date such as
        # 03.01.2023 would read as the number 3012023 and stay one.
        text = {d["column"]: str for d in reading.get("dates", ())
                if isinstance(d.get("column"), int) and d.get("format") not in ISO_FORMATS}
        if text:
            opts["dtype"] = text
    chosen = recorded_dtypes(reading) if lean else None
    if lean and chosen is None and _text_size(path, reading) > LEAN_ABOVE:
        chosen = {}      # none recorded: the first chunk chooses
    if chosen and not reading.get("strip"):
        # Categories straight from the parser: the text of a cell never
        # becomes a Python string (stripped columns are converted after).
        cats = {j: "category" for j in chosen.get("category", ()) if j not in opts.get("dtype", {})}
        if cats:
            opts["dtype"] = {**opts.get("dtype", {}), **cats}
    chunked = chosen is not None and nrows is None and _text_size(path, reading) > CHUNKED_ABOVE
    if chunked:
        # Each chunk parsed whole (low_memory=False): pandas' own smaller
        # pieces would each make categories and union them, sorting the
        # categories of a column such as customer IDs every time (3x the CPU).
        opts["chunksize"] = _chunk_rows(path, reading)
        opts["low_memory"] = False
    src = _csv_source(path, reading)
    if isinstance(src, io.TextIOBase):
        opts.pop("encoding", None)
    try:
        if chunked:
            df = _read_chunks(pd.read_csv(src, **opts), reading, chosen)
        else:
            df = _finish_frame(pd.read_csv(src, **opts), reading, raw)
            if chosen is not None:
                if not chosen:
                    chosen.update(choose_dtypes(df))
                df = apply_dtypes(df, chosen)
    except ReadError:
        raise
    except pd.errors.EmptyDataError:
        df = _finish_frame(pd.DataFrame(), reading, raw)
    finally:
        if src is not path:
            src.close()
    return df


def _finish_frame(df, reading, raw=False):
    """Column names, stripped cells and dates as the reading says."""
    if reading.get("names"):
        df.columns = dedupe_names(df.columns)
    elif not reading.get("header", True):
        df.columns = ["column %d" % (i + 1) for i in range(len(df.columns))]
    else:
        df.columns = dedupe_names([None if str(c).startswith("Unnamed: ") else c for c in df.columns])
    if reading.get("strip"):
        df.columns = dedupe_names([c.strip() if isinstance(c, str) else c for c in df.columns]) \
            if reading.get("header", True) and not reading.get("names") else df.columns
        for j in range(df.shape[1]):
            if df.dtypes.iloc[j] == object:
                df.isetitem(j, df.iloc[:, j].str.strip())
    if not raw:
        apply_dates(df, reading.get("dates", ()))
    return df


# -- memory-lean dtypes -----------------------------------------------------
#
# What a careful analyst picks: text with few distinct values as `category`
# (one small integer a row instead of a pointer to a Python string),
# integers as int32 where every value fits, dates parsed once. Floats stay
# float64: pandas sums float32 in float32, so even values that round-trip
# exactly would give totals that do not. int8/int16 are not used either:
# elementwise arithmetic on them (units * 1000) overflows silently. int32
# sums are exact (numpy and pandas add them in int64), but products can
# still overflow: the model is told to cast before multiplying big numbers.
# Only files over LEAN_ABOVE get these: in a small table categories save
# nothing and refuse new values (df.loc[i, "region"] = "new" raises).

LEAN_ABOVE = 16 << 20          # bytes of text
CHUNKED_ABOVE = 64 << 20       # read in chunks past this
CHUNK_BYTES = 16 << 20         # text per chunk
MIN_CHUNK_ROWS = 10000
CATEGORY_SHARE = 0.5           # distinct values at most this share of the filled cells
CATEGORY_MAX = 1 << 20         # and at most this many


def _text_size(path, reading):
    """Bytes of the file (packed size for a compressed one: a lower bound)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _chunk_rows(path, reading):
    """Rows a chunk of about CHUNK_BYTES holds, from the first lines."""
    try:
        head = read_head(path, reading.get("compression"), reading.get("member"), 1 << 20)
    except (OSError, ReadError):
        head = b""
    lines = head.count(b"\n")
    per_row = len(head) / lines if lines else 64.0
    return max(MIN_CHUNK_ROWS, int(CHUNK_BYTES / max(per_row, 1.0)))


def recorded_dtypes(reading):
    """The reading's dtype choice, {"category": [j], "downcast": [j]}, or
    None when it records none."""
    out = {}
    for key in ("category", "downcast"):
        v = reading.get(key)
        if isinstance(v, list):
            out[key] = [j for j in v if isinstance(j, int) and not isinstance(j, bool) and j >= 0]
    return out or None


def choose_dtypes(df):
    """The dtype choice for a frame read plainly (a sample or a first
    chunk): text columns whose distinct values are at most CATEGORY_SHARE
    of their filled cells become categories, integer columns are downcast
    where exact."""
    import pandas as pd

    cat, down = [], []
    for j in range(df.shape[1]):
        s = df.iloc[:, j]
        if s.dtype.kind in "iu":
            down.append(j)
        elif s.dtype == object or isinstance(s.dtype, pd.CategoricalDtype):
            filled = s.dropna()
            if len(filled) < 2:
                continue
            if s.dtype == object and pd.api.types.infer_dtype(filled, skipna=True) != "string":
                continue
            n = filled.nunique()
            if n <= CATEGORY_MAX and n <= CATEGORY_SHARE * len(filled):
                cat.append(j)
    out = {}
    if cat:
        out["category"] = cat
    if down:
        out["downcast"] = down
    return out


def _downcast(s):
    """int64 -> int32 when every value fits; anything else as it is."""
    import numpy as np

    if s.dtype.kind in "iu" and s.dtype.itemsize > 4 and len(s):
        lo, hi = s.min(), s.max()
        if np.iinfo(np.int32).min <= lo and hi <= np.iinfo(np.int32).max:
            return s.astype(np.int32)
    return s


def apply_dtypes(df, chosen):
    """@df with the chosen dtypes (a chunk or a whole frame)."""
    import pandas as pd

    for j in chosen.get("category", ()):
        if j < df.shape[1]:
            s = df.iloc[:, j]
            if not isinstance(s.dtype, pd.CategoricalDtype) and s.dtype.kind not in "mM":
                # Text; or, in a chunk, only empty cells or numbers read as such.
                df.isetitem(j, s.astype(object).astype("category"))
                s = df.iloc[:, j]
            if isinstance(s.dtype, pd.CategoricalDtype) and s.cat.categories.dtype != object:
                # Numbers the parser or a chunk saw in a text column: as
                # text, like the other chunks.
                df.isetitem(j, s.cat.rename_categories(s.cat.categories.astype(str).astype(object)))
    for j in chosen.get("downcast", ()):
        if j < df.shape[1]:
            df.isetitem(j, _downcast(df.iloc[:, j]))
    return df


def _give_back_freed_memory():
    """glibc keeps freed blocks up to 32 MB in its heap once it has seen
    one freed (its mmap threshold moves up), so the chunks a read has
    finished with would stay in the process's memory: a fixed threshold
    returns them. Best effort (not glibc: nothing happens)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(-3, 1 << 20)      # M_MMAP_THRESHOLD
        return libc
    except (OSError, AttributeError):
        return None


def _read_chunks(reader, reading, chosen):
    """Combines the chunks of @reader column by column, each column's
    pieces freed as soon as it is whole, so the peak is about the result
    plus one column's pieces, not twice the result. A category column
    keeps only its codes per chunk, against the categories seen so far
    (a chunk's own categories of a column such as customer IDs would
    cost more than its codes)."""
    import numpy as np
    import pandas as pd

    libc = _give_back_freed_memory()
    pieces, names, known = [], None, {}
    with reader:
        for chunk in reader:
            chunk = _finish_frame(chunk, reading)
            if names is None:
                names = list(chunk.columns)
                if not chosen:
                    chosen.update(choose_dtypes(chunk))
            chunk = apply_dtypes(chunk, chosen)
            cols = []
            for j in range(chunk.shape[1]):
                c = chunk.iloc[:, j]
                if isinstance(c.dtype, pd.CategoricalDtype):
                    cats = c.cat.categories
                    if cats.dtype != object:
                        c = c.cat.rename_categories(cats.astype(str).astype(object))
                        cats = c.cat.categories
                    seen = known.get(j)
                    if seen is None:
                        known[j] = cats
                    elif not seen.equals(cats):
                        new = cats[~cats.isin(seen)]
                        if len(new):
                            known[j] = seen.append(new)
                    c = np.asarray(c.cat.set_categories(known[j]).cat.codes)
                cols.append(c)
            pieces.append(cols)
            del chunk, cols
    if names is None:
        return pd.DataFrame()
    rows = sum(len(p[0]) for p in pieces if p)
    out = pd.DataFrame(index=pd.RangeIndex(rows))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # a wide frame is built column by column
        for j, name in enumerate(names):
            col = [p[j] for p in pieces]
            for p in pieces:
                p[j] = None
            if j in known:
                codes = np.concatenate(col)
                whole = pd.Series(pd.Categorical.from_codes(codes, categories=known[j]), index=out.index,
                                  name=name)
            else:
                whole = pd.concat(col, ignore_index=True)
                whole.index = out.index
            del col
            out[name] = whole
            del whole
    if libc is not None:
        try:
            libc.malloc_trim(0)
        except AttributeError:
            pass
    return out


def estimated_bytes(df, chosen, rows):
    """Memory @rows rows would take with @chosen, from a plainly read
    sample @df: category codes and downcast integers at their width, other
    columns at what the sample's rows take (strings included)."""
    import numpy as np

    if len(df) == 0:
        return 0
    cats = set(chosen.get("category", ()))
    down = set(chosen.get("downcast", ()))
    per_row = 0.0
    for j in range(df.shape[1]):
        s = df.iloc[:, j]
        if j in cats:
            n = s.nunique()
            per_row += 1 if n < 128 else 2 if n < 32768 else 4
        elif j in down:
            per_row += 4 if len(s) == 0 or np.iinfo(np.int32).min <= s.min() and s.max() <= np.iinfo(np.int32).max \
                else s.dtype.itemsize
        else:
            per_row += s.memory_usage(index=False, deep=True) / len(s)
    return int(per_row * rows)


# -- how big a frame may be -------------------------------------------------

DASK_SHARE = 3       # past 1/DASK_SHARE of the memory limit, reckon.load is lazy (Dask)
DASK_FACTOR = 1.5    # memory per byte of text, when the profile recorded no estimate


def memory_limit():
    """The memory this process may use, in bytes, or None when unbounded:
    the smallest of RECKON_MEMORY_LIMIT (set by whoever runs the kernel,
    and by tests), RLIMIT_AS (reckon-sandbox's --memory) and a memory
    cgroup's limit."""
    import resource

    found = []
    env = os.environ.get("RECKON_MEMORY_LIMIT", "")
    if env.isdigit() and int(env) > 0:
        found.append(int(env))
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            found.append(soft)
    except (OSError, ValueError):
        pass
    for f in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(f) as fh:
                v = fh.read().strip()
            if v.isdigit() and 0 < int(v) < (1 << 60):
                found.append(int(v))
        except OSError:
            pass
    return min(found) if found else None


def engine_for(path, reading, limit=None):
    """"dask" when the table this reading gives would take more than
    1/DASK_SHARE of the memory limit (its estimate recorded by the
    profiler, else the file's size times DASK_FACTOR), else "pandas".
    Only uncompressed text tables without line breaks inside cells can be
    read in blocks."""
    if reading.get("format") != "csv" or reading.get("compression") or reading.get("newlines") == "mixed" \
            or reading.get("multiline_cells") or str(reading.get("encoding", "")).startswith("utf-16"):
        return "pandas"
    limit = memory_limit() if limit is None else limit
    if not limit:
        return "pandas"
    need = reading.get("memory_estimate")
    if not isinstance(need, int) or isinstance(need, bool) or need < 0:
        need = int(_text_size(path, reading) * DASK_FACTOR)
    return "dask" if need * DASK_SHARE > limit else "pandas"


def read_dask(path, reading, limit=None):
    """A lazy dask.dataframe of a text table, read in blocks as the reading
    says (delimiter, encoding, header, skipped lines, decimal mark, dates).
    Text columns the reading makes categories are categories whose values
    each block finds (unknown to Dask until computed: a sample cannot
    promise there are no others); integer columns are float64, so that a
    block with an empty cell does not contradict the others."""
    import dask
    import dask.dataframe as dd

    if reading.get("compression") or reading.get("newlines") == "mixed":
        raise ReadError("This file is compressed or has mixed line ends, so it cannot be read in blocks; "
                        "unpack it, or read it with engine='pandas'.")
    limit = limit or memory_limit() or (2 << 30)
    workers = max(1, min(os.cpu_count() or 1, 4))
    # A block's text becomes several times its size while it is parsed,
    # and every worker holds one.
    # (Dask 2022.12 makes one part of a 112 MiB file at 64 MiB blocks.)
    block = int(min(32 << 20, max(4 << 20, limit // (32 * workers))))
    dask.config.set(scheduler="threads", num_workers=workers)

    opts = csv_options(reading, path)
    for k in ("low_memory", "compression"):
        opts.pop(k, None)
    # The names Reckon gives (trimmed, deduplicated, "column N"), read from
    # the first rows, so that every block is named the same way.
    first = read_csv(path, reading, nrows=1000, lean=False)
    names = list(first.columns)
    header = reading.get("header", True)
    skip = int(reading.get("skip_lines", 0))
    opts.update(header=None, names=names, skiprows=skip + (1 if header else 0))
    dtype = {}
    iso = []
    for d in reading.get("dates", ()):
        j = d.get("column")
        if isinstance(j, int) and 0 <= j < len(names):
            if d.get("format") in ISO_FORMATS:
                iso.append(names[j])
            else:
                dtype[names[j]] = object
    cats = set(recorded_dtypes(reading).get("category", ()) if recorded_dtypes(reading) else ())
    for j, name in enumerate(names):
        if name in dtype or name in iso:
            continue
        kind = first.dtypes.iloc[j].kind
        if j in cats:
            dtype[name] = "category"
        elif kind in "iuf":
            dtype[name] = "float64"
        elif kind == "b":
            dtype[name] = "boolean"
        elif kind in "OM":
            dtype[name] = object
    if iso:
        opts["parse_dates"] = iso
    opts["dtype"] = dtype
    ddf = dd.read_csv(path, blocksize=block, sample=256000, assume_missing=True, **opts)
    if reading.get("strip"):
        for name in names:
            if dtype.get(name) is object:
                ddf[name] = ddf[name].str.strip()
    for d in reading.get("dates", ()):
        j = d.get("column")
        if isinstance(j, int) and 0 <= j < len(names) and d.get("format") not in ISO_FORMATS:
            ddf[names[j]] = dd.to_datetime(ddf[names[j]], format=d.get("format"), errors="coerce")
    return ddf


# -- workbooks --------------------------------------------------------------

def _isnan(v):
    return v is None or (isinstance(v, float) and v != v)


def frame_from_rows(rows, header=None):
    """A sheet's rows (lists of Python values) -> (DataFrame, header?, head,
    skipped leading rows). Trailing empty rows and columns (formatting
    without data) and leading empty rows are dropped."""
    import pandas as pd

    rows = [list(r) for r in rows]
    while rows and all(_isnan(v) or v == "" for v in rows[-1]):
        rows.pop()
    width = 0
    for r in rows:
        while r and (_isnan(r[-1]) or r[-1] == ""):
            r.pop()
        width = max(width, len(r))
    lead = 0
    while rows and not rows[0]:
        rows.pop(0)
        lead += 1
    # Title rows above the table ("Sales report 2023", a date, then the
    # header): far fewer filled cells than the row below them.
    titles = []
    while header is None and len(rows) >= 3 and width >= 3 and len(titles) < 5:
        filled = sum(1 for v in rows[0] if not (_isnan(v) or v == ""))
        below = [sum(1 for v in r if not (_isnan(v) or v == "")) for r in rows[1:6] if r]
        if filled > max(1, width // 3) or not below or max(below) < max(3, 2 * filled):
            break
        titles.append(" ".join(_cell_text(v) for v in rows.pop(0) if not (_isnan(v) or v == "")))
        lead += 1
        while rows and not rows[0]:
            rows.pop(0)
            lead += 1
    rows = [r + [None] * (width - len(r)) for r in rows]
    if not rows:
        return pd.DataFrame(), False, [], lead
    first = rows[0]
    years = _year_run(["%d" % v if isinstance(v, int) or (isinstance(v, float) and v.is_integer()) else ""
                       for v in first])
    if header is None:
        header = (len(rows) > 1
                  and all(isinstance(v, str) or v is None or j in years for j, v in enumerate(first))
                  and any(isinstance(v, str) and v.strip() for v in first)
                  and any(not isinstance(v, str) and v is not None for r in rows[1:50] for v in r))
        if len(rows) == 1 and all(isinstance(v, str) for v in first if v is not None):
            header = True
    if header:
        names = dedupe_names([("%d" % v if isinstance(v, float) and v.is_integer() else v) for v in first])
        df = pd.DataFrame(rows[1:], columns=names)
        head = rows[1:6]
    else:
        df = pd.DataFrame(rows, columns=["column %d" % (i + 1) for i in range(width)])
        head = rows[:5]
    df = _tidy_types(df)
    df.attrs["title_rows"] = titles
    return df, bool(header), head, lead


def _cell_text(v):
    if isinstance(v, (datetime.datetime, datetime.date)):
        t = v.isoformat()
        return t[:-9] if t.endswith("T00:00:00") else t
    if isinstance(v, float) and v.is_integer():
        return "%d" % v
    return str(v)


def _tidy_types(df):
    """Object columns from a workbook: all numbers -> numeric, all dates ->
    datetime64, so a loaded sheet has the dtypes its profile shows."""
    import pandas as pd

    for j in range(df.shape[1]):
        s = df.iloc[:, j]
        if s.dtype != object:
            continue
        vals = [v for v in s.values if not _isnan(v)]
        if not vals:
            continue
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            df.isetitem(j, pd.to_numeric(s))
        elif all(isinstance(v, bool) for v in vals):
            continue
        elif all(isinstance(v, (datetime.datetime, datetime.date)) for v in vals):
            try:
                df.isetitem(j, pd.to_datetime(s))
            except (ValueError, TypeError, OverflowError):
                pass
    return df


def xlsx_sheets(path, limit_rows=MAX_SHEET_ROWS, only=None, merged=None):
    """([(sheet name, rows, total rows, merged ranges)], sheet names) of an
    XLSX workbook, read with openpyxl (read-only, values only; defusedxml
    refuses entities). @merged(ws) counts a sheet's merged ranges."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    out = []
    try:
        for ws in wb.worksheets:
            if only is not None and ws.title != only:
                continue
            rows, total = [], 0
            for r in ws.iter_rows(values_only=True):
                total += 1
                if limit_rows is None or total <= limit_rows:
                    rows.append(r)
            out.append((ws.title, rows, total, merged(ws) if merged is not None else 0))
    finally:
        wb.close()
    return out, wb.sheetnames


def xls_sheets(path, limit_rows=MAX_SHEET_ROWS, only=None, merged=None):
    """The same for an Excel 97-2003 file, through xlrd directly: Debian 12's
    xlrd is 1.2.0, which pandas refuses."""
    import xlrd

    book = xlrd.open_workbook(path, on_demand=True)
    out = []
    try:
        for i in range(book.nsheets):
            sh = book.sheet_by_index(i)
            if only is not None and sh.name != only:
                continue
            rows = []
            n = sh.nrows if limit_rows is None else min(sh.nrows, limit_rows)
            for r in range(n):
                row = []
                for c in range(sh.ncols):
                    cell = sh.cell(r, c)
                    v = cell.value
                    if cell.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK, xlrd.XL_CELL_ERROR):
                        v = None
                    elif cell.ctype == xlrd.XL_CELL_DATE:
                        try:
                            v = xlrd.xldate.xldate_as_datetime(v, book.datemode)
                        except Exception:  # noqa: BLE001 - a bad date stays its number
                            pass
                    elif cell.ctype == xlrd.XL_CELL_BOOLEAN:
                        v = bool(v)
                    elif cell.ctype == xlrd.XL_CELL_NUMBER and float(v).is_integer() and abs(v) < 2 ** 53:
                        v = int(v)
                    row.append(v)
                rows.append(row)
            out.append((sh.name, rows, sh.nrows, 0))
            book.unload_sheet(i)
        names = book.sheet_names()
    finally:
        book.release_resources()
    return out, names


def ods_sheets(path, limit_rows=MAX_SHEET_ROWS, only=None, merged=None):
    import pandas as pd

    sheets = pd.read_excel(path, engine="odf", sheet_name=only if only is not None else None, header=None)
    if only is not None:
        sheets = {only: sheets}
    out = []
    for name, df in sheets.items():
        rows = [[None if _isnan(v) else (v.to_pydatetime() if hasattr(v, "to_pydatetime") else v)
                 for v in r] for r in df.itertuples(index=False, name=None)]
        total = len(rows)
        out.append((name, rows if limit_rows is None else rows[:limit_rows], total, 0))
    return out, list(sheets)


SHEET_READERS = {"xlsx": xlsx_sheets, "xls": xls_sheets, "ods": ods_sheets}


def read_workbook(path, reading, sheet=None):
    fmt = reading.get("format")
    want = sheet if sheet is not None else reading.get("sheet")
    sheets, names = SHEET_READERS[fmt](path, limit_rows=None, only=want)
    if want is not None and not sheets:
        raise KeyError("There is no sheet %r in %s; its sheets are: %s"
                       % (want, os.path.basename(path), ", ".join(names)))
    recorded = {s.get("name"): s for s in reading.get("sheets", ()) if isinstance(s, dict)}
    frames = {}
    for name, rows, _total, _ws in sheets:
        sr = recorded.get(name, {})
        # The rows the profiler found above the table (title rows, empty
        # rows): with a recorded header, frame_from_rows would not look for
        # titles again.
        skip = sr.get("skip_rows")
        if isinstance(skip, int) and not isinstance(skip, bool) and 0 < skip <= len(rows):
            rows = rows[skip:]
        df, _h, _head, _lead = frame_from_rows(rows, sr.get("header"))
        frames[name] = df
    if want is not None or len(frames) == 1:
        return next(iter(frames.values()))
    return frames


# -- JSON and PDF -------------------------------------------------------------

def load_json(path, reading, limit=MAX_UNPACKED):
    """The parsed JSON (or JSON Lines) of a file, unpacked if it is packed."""
    codec = reading.get("encoding", "utf-8")
    with open_unpacked(path, reading.get("compression"), reading.get("member"), limit) as raw:
        f = io.TextIOWrapper(raw, encoding=codec)
        if reading.get("json_lines"):
            return [json.loads(line) for line in f if line.strip()]
        return json.load(f)


def frame_dates(df):
    """Date columns of a frame of strings (JSON records): [{column, format,
    label}] for the columns whose every sampled value reads as one format."""
    out = []
    for j in range(df.shape[1]):
        s = df.iloc[:, j]
        if s.dtype != object:
            continue
        sample = [v for v in s.head(SNIFF_ROWS).tolist() if v is not None and not (isinstance(v, float) and v != v)]
        if not sample or not all(isinstance(v, str) for v in sample):
            continue
        fmt = date_format_of(sample)
        if fmt is not None:
            out.append({"column": j, "format": fmt[0], "label": fmt[1]})
    return out


def apply_dates(df, dates):
    import pandas as pd

    for d in dates:
        j = d.get("column")
        if isinstance(j, int) and 0 <= j < df.shape[1] and df.dtypes.iloc[j] == object:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                df.isetitem(j, pd.to_datetime(df.iloc[:, j], format=d.get("format"), errors="coerce"))
    return df


def json_records(data, key):
    return data.get(key) if isinstance(data, dict) and key is not None else data


def read_json_records(path, reading):
    import pandas as pd

    records = json_records(load_json(path, reading), reading.get("records_key"))
    if not isinstance(records, list):
        raise ValueError("%s holds no list of records to make a table from." % os.path.basename(path))
    return apply_dates(pd.json_normalize(records, max_level=1), reading.get("dates", ()))


def pdf_layout_tables(path, last_page):
    """Best effort: runs of lines in pdftotext's layout output that split
    into the same number (>= 2) of columns at runs of 2+ spaces. Returns
    [(page, rows of Python values)]."""
    import subprocess

    tables = []
    for page in range(1, last_page + 1):
        try:
            out = subprocess.run(["/usr/bin/pdftotext", "-layout", "-q", "-f", str(page), "-l", str(page), path, "-"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return tables
        lines = out.decode("utf-8", errors="replace").splitlines()
        run = []
        for line in lines + ["\f end"]:
            if not line.strip():
                continue  # layout output spaces table rows with blank lines
            cells = [c for c in re.split(r"\s{2,}", line.strip()) if c]
            if len(cells) >= 2 and (not run or len(cells) == len(run[0])):
                run.append(cells)
                continue
            if len(run) >= 3:
                tables.append((page, [[_pdf_value(v) for v in r] for r in run]))
            run = [cells] if len(cells) >= 2 else []
        if len(tables) >= 10:
            break
    return tables


def _pdf_value(v):
    t = v.replace(",", "")
    try:
        return int(t)
    except ValueError:
        try:
            return float(t)
        except ValueError:
            return v


def read_pdf_tables(path, reading, sheet=None):
    tables = pdf_layout_tables(path, int(reading.get("pages_scanned", 20)))
    if not tables:
        raise ValueError("%s has no tables Reckon could find; read its text with pypdf."
                         % os.path.basename(path))
    frames = {}
    for page, rows in tables:
        name = "page %d" % page
        k = 2
        while name in frames:
            name = "page %d (%d)" % (page, k)
            k += 1
        frames[name] = frame_from_rows(rows)[0]
    if sheet is not None:
        if sheet not in frames:
            raise KeyError("There is no table %r in %s; its tables are: %s"
                           % (sheet, os.path.basename(path), ", ".join(frames)))
        return frames[sheet]
    return next(iter(frames.values())) if len(frames) == 1 else frames


# -- detection of any file ------------------------------------------------------

def kind_of(path, head):
    """The format by content first, then by extension."""
    ext = os.path.splitext(path)[1].lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        try:
            with zipfile.ZipFile(path) as z:
                names = set(n for n in z.namelist()[:MAX_ZIP_MEMBERS])
        except (zipfile.BadZipFile, OSError, ValueError, EOFError):
            return "badzip"
        if "xl/workbook.xml" in names or any(n.startswith("xl/") for n in names):
            return "xlsx"
        if "content.xml" in names:
            return "ods"
        return "zip"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "xls"
    comp = compression_of(head)
    if comp is not None:
        return comp
    if ext in (".json", ".geojson", ".jsonl", ".ndjson"):
        return "json"
    if ext in (".tsv", ".tab"):
        return "tsv"
    if ext in (".txt", ".md", ".log", ".text", ".dat"):
        return "text"
    if ext in (".xlsx", ".xlsm", ".xls", ".ods"):
        return "badworkbook"
    if ext == ".pdf":
        return "badpdf"
    return "csv"


def inner_kind(name):
    """The kind of the file a compressed one holds, from its name."""
    base = os.path.basename(name).lower()
    for ext in (".gz", ".bz2", ".xz", ".zip", ".gzip"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    ext = os.path.splitext(base)[1]
    if ext in (".tsv", ".tab"):
        return "tsv"
    if ext in (".txt", ".dat", ".text", ""):
        return "text"
    if ext in (".json", ".jsonl", ".ndjson"):
        return "json"
    return "csv"


def sidecar_path(path):
    return os.path.join(os.path.dirname(os.path.abspath(path)), READINGS_DIR,
                        os.path.basename(path) + ".json")


def workspace_root():
    return os.environ.get("RECKON_WORKSPACE") or "/workspace"


# Set by the profiler's --stage-readings: a kernel with a capped workspace
# runs beside it, so readings go to the staging folder, which the host then
# moves in (never straight into a folder that kernel's saves mirror).
STAGE_READINGS = False
INCOMING_DIR = ".reckon-incoming"


def save_reading(path, reading):
    """Keeps @reading beside the workspace file (in .reckon/readings/), so
    reckon.load replays it. Only for files at the top of the workspace.
    Best effort: a read-only or full workspace only means reckon.load
    detects the reading again."""
    if os.path.dirname(os.path.abspath(path)) != os.path.abspath(workspace_root()):
        return
    try:
        st = os.stat(path)
        target = sidecar_path(path)
        if STAGE_READINGS:
            target = os.path.join(workspace_root(), INCOMING_DIR, READINGS_DIR, os.path.basename(target))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        doc = {"version": READING_VERSION, "name": os.path.basename(path), "size": st.st_size,
               "mtime_ns": st.st_mtime_ns, "reading": reading}
        # Hidden while half-written: staged, the host moves only whole files.
        tmp = os.path.join(os.path.dirname(target), "." + os.path.basename(target) + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False)
        os.replace(tmp, target)
    except (OSError, TypeError, ValueError):
        pass


def saved_reading(path):
    """The reading the profiler kept for @path, or None when there is none
    or the file changed since."""
    try:
        st = os.stat(path)
        with open(sidecar_path(path), encoding="utf-8") as f:
            doc = json.load(f)
        if (doc.get("version") == READING_VERSION and doc.get("size") == st.st_size
                and doc.get("mtime_ns") == st.st_mtime_ns and isinstance(doc.get("reading"), dict)):
            return doc["reading"]
    except (OSError, ValueError, AttributeError):
        pass
    return None


def detect(path, options=None):
    """The reading of any file, without statistics (what reckon.load uses
    when the profiler kept none). Raises ReadError."""
    with open(path, "rb") as f:
        head = f.read(SNIFF_BYTES)
    if not head:
        raise ReadError("This file is empty.")
    kind = kind_of(path, head)
    options = options or {}
    if kind in ("xlsx", "xls", "ods"):
        reading = {"version": READING_VERSION, "format": kind}
        if options.get("sheet") is not None:
            reading["sheet"] = options["sheet"]
        return reading
    if kind == "pdf":
        return {"version": READING_VERSION, "format": "pdf"}
    comp, member, inner = None, None, kind
    if kind in ("gzip", "bz2", "xz"):
        comp, inner = kind, inner_kind(path)
    elif kind == "zip":
        member = zip_single_member(path)
        comp, inner = "zip", inner_kind(member)
    elif kind in ("badzip", "badworkbook", "badpdf"):
        raise ReadError("This file could not be read as a table.")
    if comp is not None:
        head = read_head(path, comp, member)
    complete = len(head) < SNIFF_BYTES
    if inner == "json":
        codec, _ = detect_encoding(head, complete)
        return {"version": READING_VERSION, "format": "json", "encoding": codec}
    reading = detect_text_table(head, complete, inner, options, comp, member, strict=(inner == "text"))
    if reading is None:
        return {"version": READING_VERSION, "format": "text"}
    return reading


def read(path, reading, sheet=None, engine="pandas"):
    """Replays @reading on @path: a DataFrame, or a dict of them; with
    @engine "dask" a text table is a lazy Dask DataFrame."""
    fmt = reading.get("format")
    if fmt == "csv":
        if sheet is not None:
            raise ValueError("%s is not a workbook: it has no sheets." % os.path.basename(path))
        if engine == "dask":
            return read_dask(path, reading)
        return read_csv(path, reading)
    if fmt in SHEET_READERS:
        return read_workbook(path, reading, sheet)
    if fmt == "json":
        return read_json_records(path, reading)
    if fmt == "pdf":
        return read_pdf_tables(path, reading, sheet)
    raise ValueError("%s is plain text, not a table: read it with open(%r)."
                     % (os.path.basename(path), os.path.basename(path)))
