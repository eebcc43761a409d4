# SPDX-License-Identifier: GPL-3.0-or-later
"""Profiles of the files a user drops into a session: what the model is told.

Runs inside reckon-sandbox (through reckon_profile.py), because every file it
opens is untrusted. profile_file(path) never raises: a file it cannot read
gives a dict with one clear "error" sentence. All strings in a profile are
capped, so the document the host parses stays small. How a file is read
(its "reading") comes from reading.py and is kept beside the file, so that
reckon.load reads it the same way.
"""

import json
import math
import os
import re
import sys
import warnings

# Before anything imports an XML parser: entity expansion (billion laughs),
# external entities and DTD tricks are refused everywhere, stdlib included.
os.environ["OPENPYXL_DEFUSEDXML"] = "True"
try:
    import defusedxml
    import defusedxml.ElementTree  # noqa: F401  (openpyxl picks it up)

    defusedxml.defuse_stdlib()
    DEFUSED = True
except ImportError:  # pragma: no cover - Reckon depends on python3-defusedxml
    DEFUSED = False

from . import reading as rd  # noqa: E402
from . import progress as _progress  # noqa: E402

HEAD_ROWS = 5
MAX_CELL = 120           # characters of one cell in "head"
MAX_NAME = 120           # characters of a column or sheet name
MAX_COLUMNS = 200        # columns described in detail
MAX_SHEETS = 32
MAX_PAGES_TEXT = 3       # PDF pages whose text is included
MAX_PAGE_TEXT = 1500     # characters of text per page
MAX_TEXT_LINES = 10
SNIFF_BYTES = rd.SNIFF_BYTES
MAX_SHEET_ROWS = rd.MAX_SHEET_ROWS
MAX_JSON_BYTES = 64 * 1024 * 1024
# With --partial: called with a big CSV's profile from its sample (rows
# estimated) while the exact row count goes on; main() prints it.
PARTIAL = None

BIG_CSV = 32 * 1024 * 1024  # above this, CSV statistics come from a sample
SAMPLE_ROWS = 200000

ERR_BINARY = "This file is not a spreadsheet: it contains binary data."
ERR_EMPTY = "This file is empty."
ERR_MEMORY = "This file needs more memory than the sandbox allows, so it was not profiled."
ERR_UNSAFE_XML = "This file contains unsafe XML (entity declarations), so it was not opened."
ERR_ZIP = "This workbook is damaged or is not really an Excel file."


class ProfileError(Exception):
    """An error whose message is the one sentence the user sees."""


def _cap(value, limit=MAX_CELL):
    if value is None:
        return None
    s = str(value)
    # Control characters other than tab and newline are shown escaped.
    s = "".join(c if (c >= " " or c in "\t\n\r") and c != "\x7f" else "\\x%02x" % ord(c) for c in s)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return s


def _finite(x):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    if math.isnan(x) or math.isinf(x):
        return None
    # Integers stay integers in JSON, so "12" is not shown as "12.0".
    if x.is_integer() and abs(x) < 2 ** 53:
        return int(x)
    return float("%.6g" % x) if abs(x) < 1e5 else float("%.15g" % x)


def _is_binary(head):
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in head:
        return True
    # Lots of C0 control bytes other than whitespace: not text either.
    ctrl = sum(1 for b in head[:8192] if b < 9 or 13 < b < 32)
    return ctrl > max(8, len(head[:8192]) // 50)


def _reading_for_profile(reading):
    """The reading as the profile shows it: capped, JSON-safe."""
    out = {}
    for k, v in reading.items():
        if isinstance(v, str):
            out[k] = _cap(v, MAX_NAME)
        elif isinstance(v, (bool, int, float)) or v is None:
            out[k] = v
        elif k == "names":
            out[k] = [_cap(x, MAX_NAME) for x in v[:MAX_COLUMNS]]
        elif k in ("category", "downcast"):
            # Column numbers (the dtype choice), for the notebook export.
            out[k] = [x for x in v if isinstance(x, int) and not isinstance(x, bool)][:rd.MAX_TABLE_COLUMNS]
        elif isinstance(v, list):
            out[k] = [{kk: (_cap(vv, 400) if isinstance(vv, str) else vv) for kk, vv in x.items()}
                      if isinstance(x, dict) else _cap(x, MAX_NAME) for x in v[:MAX_SHEETS]]
    return out


def _add_unsure_notes(result, reading):
    for u in reading.get("unsure", ()):
        result.setdefault("notes", []).append(_cap(u["note"], 400))
    for n in reading.get("notes", ()):
        result.setdefault("notes", []).append(_cap(n, 400))


def _hint(path, reading):
    name = os.path.basename(path)
    return "reckon.load(%r)" % name


# -- delimited text ---------------------------------------------------------

def _unpacked_size_and_lines(path, reading):
    """Bytes and line breaks of the (unpacked) file, read once: for a
    compressed file this also enforces the cap on its unpacked size."""
    size = lines = 0
    last = b"\n"
    # One buffer, read into again and again (no allocation per block), its
    # line breaks counted by numpy's vectorised compare: 3.5 times less CPU
    # than bytes.count, so a plain file counts at about the speed of wc -l.
    buf = bytearray(1 << 23)
    try:
        import numpy as np

        arr = np.frombuffer(buf, dtype=np.uint8)
        hits = np.empty(len(buf), dtype=bool)
    except ImportError:  # pragma: no cover - pandas needs numpy
        np = None
    if reading.get("compression"):
        f = rd.open_unpacked(path, reading.get("compression"), reading.get("member"))
    else:
        f = open(path, "rb", buffering=0)
        try:
            # A wider readahead for a file read once from start to end (a
            # cold 10 GB file is read at the disk's speed, not in 128 KiB steps).
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
        except (OSError, AttributeError):
            pass
    with f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            size += n
            if not reading.get("compression"):
                _progress.reached(size)
            if np is not None:
                np.equal(arr[:n], 10, out=hits[:n])
                lines += int(np.count_nonzero(hits[:n]))
            else:
                lines += buf.count(b"\n", 0, n)
            last = buf[n - 1:n]
    if last != b"\n":
        lines += 1
    return size, lines


class _Counting:
    """_unpacked_size_and_lines in a thread; result() waits for it (and
    counts in the caller's thread if no thread could be started)."""

    def __init__(self, path, reading):
        import threading

        self._args = (path, dict(reading))
        self._out = None
        self._error = None
        self._thread = threading.Thread(target=self._run, name="reckon-count", daemon=True)
        try:
            self._thread.start()
        except RuntimeError:  # no thread to be had (a process limit)
            self._thread = None

    def _run(self):
        try:
            self._out = _unpacked_size_and_lines(*self._args)
        except BaseException as e:  # noqa: BLE001 - raised again in result()
            self._error = e

    def result(self):
        if self._thread is None:
            return _unpacked_size_and_lines(*self._args)
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._out


def _read_with_fallbacks(path, reading, nrows, result):
    """read_csv as the reading says; a later byte that is not UTF-8, a quote
    mark never closed, or rows wider than the first change the reading
    (recorded, so reckon.load does the same)."""
    import pandas as pd

    notes = []
    ragged_note = None
    df = None
    for _ in range(8):
        try:
            df = rd.read_csv(path, reading, nrows=nrows, lean=False)
            break
        except UnicodeDecodeError:
            nxt = {"utf-8": "cp1252", "utf-8-sig": "cp1252", "cp1252": "latin-1"}.get(reading["encoding"])
            if nxt is None:
                raise
            reading["encoding"] = nxt
        except pd.errors.ParserError as e:
            if (("out of memory" in str(e) or "Buffer overflow" in str(e))
                    and reading.get("newlines") != "mixed"):
                reading["newlines"] = "mixed"
                continue
            if "EOF inside string" in str(e) and reading.get("quoting") != "none":
                # A quote mark opened and never closed: quotes are text here,
                # and the widths of the rows must be counted again.
                reading["quoting"] = "none"
                reading.pop("names", None)
                ragged_note = None
                notes.append("A quote mark in this file is never closed, so quote marks were read as text.")
                continue
            saw = re.search(r"saw (\d+)", str(e))
            if reading.get("names"):
                # The csv module and pandas disagree on a row (odd quoting):
                # widen the table to what pandas saw.
                if saw is None or int(saw.group(1)) <= len(reading["names"]) or int(saw.group(1)) > 10000:
                    raise
                names = list(reading["names"])
                reading["names"] = rd.dedupe_names(names + ["column %d" % (i + 1)
                                                            for i in range(len(names), int(saw.group(1)))])
                continue
            width, ragged, first = _widest_row(path, reading)
            names = []
            if reading.get("header", True) and first is not None:
                names = rd.dedupe_names(first)
            names = names + ["column %d" % (i + 1) for i in range(len(names), width)]
            reading["names"] = rd.dedupe_names(names)
            ragged_note = ("%d rows have a different number of fields than the first row; the table has %d "
                           "columns, shorter rows were padded." % (ragged, width))
    if df is None:
        df = rd.read_csv(path, reading, nrows=nrows, lean=False)
    if ragged_note:
        notes.append(ragged_note)
    if notes:
        result.setdefault("notes", []).extend(notes)
    return df


def _widest_row(path, reading):
    """(widest row, rows of another width than the first, the first row)."""
    import csv
    import io

    width, ragged, first, expect = 0, 0, None, None
    with rd.open_unpacked(path, reading.get("compression"), reading.get("member")) as raw:
        f = io.TextIOWrapper(raw, encoding=reading["encoding"], errors="replace", newline="")
        for _ in range(int(reading.get("skip_lines", 0))):
            f.readline()
        if reading.get("whitespace"):
            it = (line.split() for line in f)
        else:
            it = csv.reader(f, delimiter=reading.get("delimiter", ","),
                            quotechar=reading.get("quotechar", '"'),
                            quoting=csv.QUOTE_NONE if reading.get("quoting") == "none" else csv.QUOTE_MINIMAL,
                            skipinitialspace=bool(reading.get("skipinitialspace")))
        for row in it:
            if not row or (reading.get("comment") and row[0].lstrip().startswith(reading["comment"])):
                continue
            if first is None:
                first, expect = row, len(row)
                continue
            width = max(width, len(row))
            if len(row) != expect:
                ragged += 1
    return max(width, expect or 0), ragged, first


def _profile_csv(path, kind, raw, complete, result, options, compression=None, member=None, strict=False):
    reading = rd.detect_text_table(raw, complete, kind, options, compression, member, strict=strict)
    if reading is None:
        return None
    counting = None
    if compression:
        size, lines = _unpacked_size_and_lines(path, reading)
        result["unpacked_size"] = size
    else:
        size, lines = os.path.getsize(path), None
        if size > BIG_CSV:
            # The exact row count reads the whole file: it runs beside the
            # sample's statistics (both mostly outside the GIL), so a big
            # file's profile takes about as long as the count alone.
            counting = _Counting(path, reading)
    big = size > BIG_CSV and not reading["encoding"].startswith("utf-16")
    df = _read_with_fallbacks(path, reading, SAMPLE_ROWS if big else None, result)
    delim = reading["delimiter"]
    result.update(kind="tsv" if delim == "\t" else "csv",
                  encoding=rd.ENCODING_LABELS.get(reading["encoding"], reading["encoding"]),
                  delimiter=delim if not reading.get("whitespace") else " ",
                  decimal=reading["decimal"], header=reading["header"])
    notes = result.setdefault("notes", [])
    comments = int(reading.get("comment_lines", 0))
    if comments:
        notes.append("%d comment line%s before the table %s skipped." % (comments, "" if comments == 1 else "s",
                                                                           "was" if comments == 1 else "were"))
    _add_unsure_notes(result, reading)
    try:
        head_rows = rd.read_csv(path, reading, nrows=HEAD_ROWS, raw=True).values.tolist()
    except Exception:  # noqa: BLE001 - the full read worked; head is cosmetic
        head_rows = df.head(HEAD_ROWS).astype(str).values.tolist()
    table = _profile_frame(df, None, head_rows)
    table["header"] = reading["header"]
    if big and len(df) >= SAMPLE_ROWS and counting is not None and PARTIAL is not None:
        # The sample's statistics are ready and the count goes on: the host
        # may show them at once, with the rows estimated from the bytes the
        # sample took.
        try:
            _send_partial(path, reading, df, table, size, result, notes)
        except Exception:  # noqa: BLE001 - the partial is a courtesy; the final document follows
            pass
    if big and len(df) >= SAMPLE_ROWS:
        if lines is None:
            _size, lines = counting.result() if counting is not None else _unpacked_size_and_lines(path, reading)
        total = lines - int(reading.get("skip_lines", 0)) - (1 if reading["header"] else 0)
        table["rows"] = max(total, len(df))
        table["rows_sampled"] = len(df)
        if not _rows_exact(df) or reading.get("comment"):
            table["rows_approximate"] = True
    _finish_csv(path, reading, df, table, size, result)
    return reading


def _sample_bytes(path, reading, rows):
    """The bytes the first @rows lines (with any skipped lines and the
    header) take, or None past 256 MiB."""
    want = rows + int(reading.get("skip_lines", 0)) + (1 if reading["header"] else 0)
    seen = done = 0
    with open(path, "rb") as f:
        while done < (256 << 20):
            block = f.read(1 << 22)
            if not block:
                return done or None
            n = block.count(b"\n")
            if seen + n >= want:
                pos = -1
                for _ in range(want - seen):
                    pos = block.index(b"\n", pos + 1)
                return done + pos + 1
            seen += n
            done += len(block)
    return None


def _send_partial(path, reading, df, table, size, result, notes):
    import copy

    taken = _sample_bytes(path, reading, len(df))
    if not taken:
        return
    est = copy.deepcopy(table)
    est["rows"] = max(len(df), int(size * len(df) / taken))  # bytes per sampled row
    est["rows_sampled"] = len(df)
    est["rows_approximate"] = True
    res = copy.deepcopy(result)
    res["notes"] = list(notes)
    rdg = copy.deepcopy(reading)
    _finish_csv(path, rdg, df, est, size, res)
    PARTIAL(res)


def _finish_csv(path, reading, df, table, size, result):
    notes = result.setdefault("notes", [])
    if not _rows_exact(df):
        # Dask splits a file into blocks at line breaks: a cell holding one
        # would be cut in two, so such a table is never read lazily.
        reading["multiline_cells"] = True
        notes.append("Statistics come from the first %d rows." % len(df))
    for d in reading.get("dates", ()):
        j = d["column"]
        if j < len(table["column_info"]):
            table["column_info"][j]["date_format"] = _cap(d["label"], 80)
    _choose_engine(path, reading, df, table, size, result)
    result["tables"] = [table]
    result["reading"] = _reading_for_profile(reading)
    result["read_hint"] = _hint(path, reading)


def _choose_engine(path, reading, df, table, size, result):
    """The dtypes reckon.load will use (recorded in the reading, for a file
    big enough that they matter), the memory its table will take, and
    whether that is past the share of the memory limit where reckon.load
    returns a lazy Dask DataFrame instead ("engine": "dask", "large")."""
    chosen = {}
    if size > rd.LEAN_ABOVE:
        chosen = rd.choose_dtypes(df)
        reading.update(chosen)
    estimate = rd.estimated_bytes(df, chosen, table["rows"])
    reading["memory_estimate"] = estimate
    limit = rd.memory_limit()
    engine = rd.engine_for(path, reading, limit)
    result["engine"] = engine
    result["memory_estimate"] = estimate
    if limit:
        result["memory_limit"] = limit
    if engine == "dask":
        result["large"] = True
        table["lazy"] = True
        result.setdefault("notes", []).append(
            "This table needs about %d MB in memory, more than a third of the sandbox's %d MB, so "
            "reckon.load returns a lazy Dask DataFrame read in parts; .compute() gives small results "
            "as pandas." % (estimate >> 20, limit >> 20))
    for j in chosen.get("category", ()):
        if j < len(table["column_info"]):
            table["column_info"][j]["dtype"] = "category"


def _rows_exact(sample):
    for i in range(sample.shape[1]):
        s = sample.iloc[:, i]
        if s.dtype == object and any(type(v) is str and "\n" in v for v in s.values):
            return False
    return True


# -- column statistics ----------------------------------------------------

def _column_type(series):
    from pandas.api import types as t

    s = series.dropna()
    if len(s) == 0:
        return "empty"
    if t.is_bool_dtype(series):
        return "boolean"
    if t.is_integer_dtype(series):
        return "integer"
    if t.is_float_dtype(series):
        return "integer" if bool((s == s.round()).all()) and s.abs().max() < 2 ** 53 else "float"
    if t.is_datetime64_any_dtype(series):
        return "date" if bool((s == s.dt.normalize()).all()) else "datetime"
    # Object columns: mixed numbers and text (spreadsheets), dates, text.
    sample = s.head(200)
    if all(isinstance(v, bool) for v in sample):
        return "boolean"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sample):
        return "float" if any(isinstance(v, float) and not float(v).is_integer() for v in sample) else "integer"
    if all(hasattr(v, "year") for v in sample):
        return "datetime"
    if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sample):
        return "mixed"
    return "text"


def _profile_frame(df, name, head_rows, decimal="."):
    import numpy as np
    import pandas as pd

    rows, ncols = df.shape
    cols = []
    for i, col in enumerate(df.columns[:MAX_COLUMNS]):
        s = df.iloc[:, i]
        info = {"name": _cap(col, MAX_NAME), "type": _column_type(s),
                "missing": int(s.isna().sum())}
        if s.dtype == object and rows <= 20000:
            # Blank strings count as missing too (CSV readers already turn
            # empty fields into NaN; spreadsheets keep "").
            info["missing"] += sum(1 for v in s.values if type(v) is str and not v.strip())
        if info["type"] in ("integer", "float", "mixed"):
            num = pd.to_numeric(s, errors="coerce") if s.dtype == object else s
            arr = num.to_numpy(dtype="float64", na_value=np.nan)
            arr = arr[np.isfinite(arr)]
            if arr.size:
                info.update(min=_finite(arr.min()), max=_finite(arr.max()),
                            mean=_finite(arr.mean()),
                            std=_finite(arr.std(ddof=1)) if arr.size > 1 else None)
        elif info["type"] in ("text", "boolean", "date", "datetime"):
            sub = s if rows <= 1000000 else s.sample(1000000, random_state=0)
            try:
                info["unique"] = int(sub.nunique())
                if info["type"] in ("date", "datetime"):
                    if pd.api.types.is_datetime64_any_dtype(sub):
                        d = sub.dropna()
                    else:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            d = pd.to_datetime(sub.dropna().astype(str), errors="coerce").dropna()
                    if len(d):
                        fmt = "%Y-%m-%d" if info["type"] == "date" else "%Y-%m-%d %H:%M:%S"
                        info.update(min=d.min().strftime(fmt), max=d.max().strftime(fmt))
                elif info["type"] == "text" and info["unique"] <= 10:
                    info["values"] = [_cap(v, 40) for v in sub.dropna().value_counts().index[:10]]
            except TypeError:
                pass
        cols.append(info)
    head = [[_cap(v) if not _isnan(v) else None for v in r][:MAX_COLUMNS] for r in head_rows[:HEAD_ROWS]]
    table = {"rows": int(rows), "columns": int(ncols), "column_info": cols, "head": head}
    if name is not None:
        table["name"] = _cap(name, MAX_NAME)
    if ncols > MAX_COLUMNS:
        table["columns_truncated"] = True
    return table


def _isnan(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


# -- workbooks ------------------------------------------------------------

def _sheet_table(name, rows, total_rows, header=None):
    df, header, head, lead = rd.frame_from_rows(rows, header)
    titles = df.attrs.pop("title_rows", [])
    table = _profile_frame(df, name, [[_fmt_cell(v) for v in r] for r in head])
    table["header"] = header
    if titles:
        table["title_rows"] = [_cap(t, 80) for t in titles]
    if total_rows is not None and total_rows > len(rows):
        table["rows"] = total_rows - lead - (1 if header else 0)
        table["rows_sampled"] = MAX_SHEET_ROWS
    # skip_rows: the rows above the header (or the data), so an exported
    # notebook can read the sheet with pd.read_excel(header=skip_rows).
    return table, {"name": _cap(name, MAX_NAME), "header": header, "skip_rows": lead}


def _fmt_cell(v):
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)  # spreadsheets store 42 as 42.0
    if hasattr(v, "isoformat"):
        s = v.isoformat()
        return s[:-9] if s.endswith("T00:00:00") else s
    return v


def _profile_workbook(path, fmt, result, options):
    try:
        sheets, names = rd.SHEET_READERS[fmt](path, merged=_count_merged)
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception as e:  # noqa: BLE001
        if _is_entities_error(e):
            raise ProfileError(ERR_UNSAFE_XML)
        if fmt == "xls":
            raise ProfileError("This workbook is damaged or is not really an Excel 97-2003 file.")
        if fmt == "ods":
            raise ProfileError("This spreadsheet is damaged or is not really an OpenDocument file.")
        raise ProfileError(ERR_ZIP)
    result["kind"] = fmt
    tables, sheet_readings = [], []
    for name, rows, total, merged in sheets[:MAX_SHEETS]:
        table, sr = _sheet_table(name, rows, total if total > MAX_SHEET_ROWS else None, options.get("header"))
        tables.append(table)
        sheet_readings.append(sr)
        if table.get("title_rows"):
            n = len(table["title_rows"])
            result.setdefault("notes", []).append(
                "Sheet %s: %s above the table (%s) %s skipped." % (
                    _cap(name, 60), "1 title row" if n == 1 else "%d title rows" % n,
                    _cap("; ".join(table["title_rows"]), 120), "was" if n == 1 else "were"))
        if merged:
            result.setdefault("notes", []).append(
                "Sheet %s has %d merged cell ranges: each value is in the top-left cell of its range, "
                "the other cells read as empty." % (_cap(name, 60), merged))
    result["sheets"] = len(names)
    result["tables"] = tables
    reading = {"version": rd.READING_VERSION, "format": fmt, "sheets": sheet_readings}
    if options.get("header") is not None:
        reading["header_forced"] = bool(options["header"])
    want = options.get("sheet")
    if want is not None:
        if want in names:
            reading["sheet"] = want
        else:
            result.setdefault("notes", []).append(
                "There is no sheet called %s; the sheets are: %s." % (_cap(want, 60), _cap(", ".join(names), 300)))
    result["reading"] = _reading_for_profile(reading)
    result["read_hint"] = _hint(path, reading)
    return reading
def _count_merged(ws, limit=64 * 1024 * 1024):
    """Merged ranges of a read-only sheet (openpyxl does not give them in
    read-only mode): count <mergeCell> tags in the sheet's XML, reading at
    most @limit bytes of it. 0 when unknown."""
    try:
        count, tail, seen = 0, b"", 0
        with ws.parent._archive.open(ws._worksheet_path) as f:
            while seen < limit:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                seen += len(chunk)
                data = tail + chunk
                count += data.count(b"<mergeCell ")
                # A tag split across chunks is whole in tail + chunk; the
                # tail (10 bytes) is too short to hold a whole one twice.
                tail = data[-10:]
        return count
    except Exception:  # noqa: BLE001 - a private attribute may change; merged cells are a nicety
        return 0


def _is_entities_error(e):
    name = type(e).__name__
    return name in ("EntitiesForbidden", "DTDForbidden", "ExternalReferenceForbidden",
                    "NotSupportedError") or "Forbidden" in name



# -- PDF ------------------------------------------------------------------

def _pdf_has_images(reader, pages=20):
    """Does any of the first pages show a raster image (a scan)? Pages with
    only vector drawings have no text either, but are not scans."""
    def walk(res, depth):
        try:
            res = res.get_object() if res is not None else None
            xo = res.get("/XObject") if res is not None else None
            xo = xo.get_object() if xo is not None else None
            for key in list(xo.keys())[:64] if xo is not None else ():
                obj = xo[key].get_object()
                sub = obj.get("/Subtype")
                if sub == "/Image":
                    return True
                if sub == "/Form" and depth < 3 and walk(obj.get("/Resources"), depth + 1):
                    return True
        except Exception:  # noqa: BLE001 - a damaged resource dictionary is no image
            return False
        return False

    for page in list(reader.pages)[:pages]:
        try:
            if walk(page.get("/Resources"), 0):
                return True
            data = page.get_contents()
            data = data.get_data()[: 1 << 20] if data is not None else b""
            if b"\nBI" in data or data.startswith(b"BI"):
                return True
        except Exception:  # noqa: BLE001
            continue
    return False


def _profile_pdf(path, result):
    from pypdf import PdfReader

    result["kind"] = "pdf"
    notes = result.setdefault("notes", [])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(path, strict=False)
            encrypted = reader.is_encrypted
            if encrypted:
                try:
                    ok = reader.decrypt("")
                except Exception:  # noqa: BLE001
                    ok = 0
                if not ok:
                    raise ProfileError("This PDF is encrypted with a password, so its text cannot be read.")
                notes.append("This PDF is encrypted but opens without a password.")
            pages = reader.pages
            n = len(pages)
    except ProfileError:
        raise
    except MemoryError:
        raise ProfileError(ERR_MEMORY)
    except Exception:  # noqa: BLE001
        raise ProfileError("This PDF is damaged and could not be read.")
    result["pages"] = n
    texts, any_text = [], False
    for i in range(n):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = pages[i].extract_text() or ""
        except Exception:  # noqa: BLE001
            t = ""
        if t.strip():
            any_text = True
        if i < MAX_PAGES_TEXT:
            texts.append(_cap(t.strip(), MAX_PAGE_TEXT))
        elif any_text:
            break
    result["page_text"] = texts
    if not any_text:
        result["text_layer"] = False
        if _pdf_has_images(reader):
            notes.append("This PDF has no text layer (it is probably scanned), so its text cannot be read without OCR.")
        else:
            notes.append("This PDF has no text: its pages hold only drawings (vector graphics), not a scan.")
        return None
    result["text_layer"] = True
    reading = {"version": rd.READING_VERSION, "format": "pdf", "pages_scanned": min(n, 20)}
    tables = []
    if not encrypted:
        for page, rows in rd.pdf_layout_tables(path, min(n, 20)):
            table = _sheet_table("page %d" % page, rows, None)[0]
            table["page"] = page
            tables.append(table)
    if tables:
        result["tables"] = tables
        result["reading"] = _reading_for_profile(reading)
        result["read_hint"] = _hint(path, reading)
        return reading
    result["read_hint"] = ("pypdf.PdfReader(%r).pages[i].extract_text(), or "
                           "subprocess.run(['pdftotext', '-layout', %r, '-'])" % ((os.path.basename(path),) * 2))
    return None


# -- text and JSON --------------------------------------------------------

def _profile_text(path, head, result):
    if not head.strip():
        raise ProfileError(ERR_EMPTY)
    codec, label = rd.detect_encoding(head, len(head) < SNIFF_BYTES)
    text = rd.sample_text(head, codec, len(head) < SNIFF_BYTES)
    result.update(kind="text", encoding=label)
    lines = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            lines += chunk.count(b"\n")
    result["lines"] = lines
    result["first_lines"] = [_cap(line, 200) for line in text.splitlines()[:MAX_TEXT_LINES]]


def _profile_json(path, head, size, result, compression=None, member=None):
    import pandas as pd

    result["kind"] = "json"
    if not head.strip():
        raise ProfileError(ERR_EMPTY)
    if size > MAX_JSON_BYTES:
        raise ProfileError("This JSON file is too large to profile (over 64 MB).")
    codec, label = rd.detect_encoding(head, len(head) < SNIFF_BYTES)
    reading = {"version": rd.READING_VERSION, "format": "json", "encoding": codec}
    if compression:
        reading["compression"] = compression
        if member:
            reading["member"] = member
    try:
        data = rd.load_json(path, reading, MAX_JSON_BYTES)
    except rd.ReadError as e:
        if str(e) == rd.ERR_UNPACKED or "unpacks to more" in str(e):
            raise ProfileError("This JSON file is too large to profile (over 64 MB unpacked).")
        raise ProfileError(str(e))
    except (ValueError, UnicodeDecodeError):
        # JSON Lines: one object a line.
        try:
            data = rd.load_json(path, dict(reading, json_lines=True), MAX_JSON_BYTES)
            result["json_lines"] = True
            reading["json_lines"] = True
        except rd.ReadError as e:
            raise ProfileError(str(e))
        except (ValueError, UnicodeDecodeError):
            raise ProfileError("This file is not valid JSON.")
    except RecursionError:
        raise ProfileError("This JSON file is nested too deeply to read.")
    records = None
    if isinstance(data, list):
        result["top"] = "array"
        result["length"] = len(data)
        if data and all(isinstance(x, dict) for x in data[:1000]):
            records = data
    elif isinstance(data, dict):
        result["top"] = "object"
        result["keys"] = [_cap(k, 60) for k in list(data)[:50]]
        for k, v in data.items():
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v[:1000]):
                records = v
                result["records_key"] = _cap(k, 60)
                reading["records_key"] = k
                break
    else:
        result["top"] = type(data).__name__
    if records is None:
        return None
    df = pd.json_normalize(records[:MAX_SHEET_ROWS], max_level=1)
    head = df.head(HEAD_ROWS).astype(object).values.tolist()
    dates = rd.frame_dates(df)
    if dates:
        reading["dates"] = dates
        rd.apply_dates(df, dates)
    table = _profile_frame(df, None, head)
    table["rows"] = len(records)
    result["tables"] = [table]
    result["reading"] = _reading_for_profile(reading)
    result["read_hint"] = _hint(path, reading)
    return reading


# -- entry point ----------------------------------------------------------

def _profile_packed(path, kind, result, options):
    """A gzip, bz2 or xz file, or a ZIP archive holding one file: the file
    inside is profiled as if it had been added itself."""
    member = None
    if kind == "zip":
        try:
            member = rd.zip_single_member(path)
        except rd.ReadError as e:
            raise ProfileError(str(e))
        inner = rd.inner_kind(member)
        result["member"] = _cap(os.path.basename(member), MAX_NAME)
    else:
        inner = rd.inner_kind(path)
    result["compression"] = kind
    try:
        raw = rd.read_head(path, kind, member)
    except rd.ReadError as e:
        raise ProfileError(str(e))
    if not raw:
        raise ProfileError(ERR_EMPTY)
    if _is_binary(raw):
        raise ProfileError("This compressed file does not hold a table: what it holds is binary data.")
    if inner == "json":
        return _profile_json(path, raw, 0, result, kind, member)
    reading = _profile_csv(path, "tsv" if inner == "tsv" else "csv", raw, len(raw) < SNIFF_BYTES, result,
                           options, kind, member, strict=(inner == "text"))
    if reading is None:
        raise ProfileError("This compressed file holds plain text, not a table: unpack it to read it.")
    return reading


def profile_file(path, options=None):
    options = options or {}
    name = os.path.basename(path)
    result = {"name": name}
    reading = None
    try:
        st = os.stat(path, follow_symlinks=False)
        result["size"] = st.st_size
        import stat as _stat
        if not _stat.S_ISREG(st.st_mode):
            raise ProfileError("This is not a regular file.")
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
        if not head:
            raise ProfileError(ERR_EMPTY)
        kind = rd.kind_of(path, head)
        complete = len(head) < SNIFF_BYTES
        if kind == "pdf":
            reading = _profile_pdf(path, result)
        elif kind in ("xlsx", "xls", "ods"):
            reading = _profile_workbook(path, kind, result, options)
        elif kind in ("gzip", "bz2", "xz", "zip"):
            reading = _profile_packed(path, kind, result, options)
        elif kind == "badzip":
            raise ProfileError("This ZIP archive is damaged, so it could not be read.")
        elif kind == "badworkbook":
            raise ProfileError(ERR_ZIP)
        elif kind == "badpdf":
            raise ProfileError("This file is named .pdf but is not a PDF.")
        elif _is_binary(head):
            raise ProfileError(ERR_BINARY)
        elif kind == "json":
            reading = _profile_json(path, head, st.st_size, result)
        elif kind == "text":
            # A .txt file that is a table (separated by | ; tabs or commas)
            # is profiled as one.
            reading = _profile_csv(path, "text", head, complete, result, options, strict=True)
            if reading is None:
                result.pop("notes", None)
                _profile_text(path, head, result)
        else:
            reading = _profile_csv(path, kind, head, complete, result, options)
    except ProfileError as e:
        result["error"] = str(e)
    except rd.ReadError as e:
        result["error"] = str(e)
    except MemoryError:
        result["error"] = ERR_MEMORY
    except RecursionError:
        result["error"] = "This file is nested too deeply to read."
    except Exception as e:  # noqa: BLE001 - one clear sentence, never a traceback
        if _is_entities_error(e):
            result["error"] = ERR_UNSAFE_XML
        else:
            result["error"] = "This file could not be read (%s)." % _cap(type(e).__name__, 60)
    if "error" in result:
        for k in ("tables", "reading", "read_hint"):
            result.pop(k, None)
        reading = None
    if reading is not None:
        rd.save_reading(path, reading)
    return result


def _parse_option(arg, options):
    """--header=yes|no|auto, --delimiter=comma|semicolon|tab|pipe|space|C,
    --sheet=NAME (empty: none), --skip=N (lines before the table). They
    apply to the files named after them. --stage-readings: readings are kept
    in .reckon-incoming/.reckon/readings/ for the host to move in."""
    key, _, value = arg[2:].partition("=")
    if key == "header":
        options["header"] = {"yes": True, "no": False}.get(value)
    elif key == "delimiter":
        options["delimiter"] = rd.DELIMITER_NAMES.get(value, value[:1] or None)
    elif key == "sheet":
        options["sheet"] = value or None
    elif key == "skip":
        options["skip"] = int(value) if value.isdigit() else None
    elif key == "stage-readings":
        rd.STAGE_READINGS = True
    elif key == "partial":
        options["partial"] = True
    else:
        return False
    return True


def main(argv):
    import gc

    from .progress import Progress

    files = []
    options = {}
    global PARTIAL

    progress = Progress()  # "reckon-progress" lines on stderr, for the file's card
    for p in argv:
        if p.startswith("--") and _parse_option(p, options):
            continue
        if options.get("partial"):
            PARTIAL = _partial_printer(len(files), os.path.basename(p))
        with progress.watch(len(files), p):
            files.append(profile_file(p, dict(options)))
        PARTIAL = None
        gc.collect()  # give back what a big file took before the next one
    progress.close()
    doc = {"version": 1, "defused": DEFUSED, "files": files}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, default=str)


def _partial_printer(index, name):
    """One line on stdout, at most once per file, before the final document:
    {"version": 1, "partial": true, "index": I, "files": [FILE]} (I: the
    file's place among the file arguments; the host checks both)."""
    sent = []

    def send(result):
        if sent:
            return
        sent.append(True)
        result = dict(result, name=name)
        doc = {"version": 1, "partial": True, "index": index, "defused": DEFUSED, "files": [result]}
        sys.stdout.write(json.dumps(doc, ensure_ascii=False, allow_nan=False, default=str) + "\n")
        sys.stdout.flush()

    return send
