#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the real-world file shapes test-import profiles into DIR.

make-import-fixtures.py DIR                     the fixtures of test-import
make-import-fixtures.py DIR bomb-xlsx MB        DIR/bomb.xlsx, MB of shared strings
make-import-fixtures.py FILE bench-csv MB       a mixed-type CSV of about MB
Every fixture is generated (openpyxl, odfpy, matplotlib, pypdf), so the tests
need no binary files in the tree. Prints nothing on success.
"""

import io
import os
import sys
import zipfile


def write(d, name, data, mode="wb"):
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


def csvs(d):
    write(d, "quoted.csv", b'id,comment,amount\n1,"hello, world",3.5\n2,"two\nlines ""quoted""",4\n3,plain,5.25\n')
    write(d, "bom.csv", b"\xef\xbb\xbfname,score\nAnna,1\nBj\xc3\xb6rn,2\n")
    write(d, "latin1.csv", "ville;habitants\nSaint-\u00c9tienne;171000\nB\u00e9ziers;78000\n".encode("latin-1"))
    write(d, "semicolon.csv", b"produit;prix;quantite\npomme;1,50;3\npoire;2,25;10\nkiwi;1.234,75;1\n")
    write(d, "ragged.csv", b"a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n")
    write(d, "empty.csv", b"")
    write(d, "header-only.csv", b"alpha,beta,gamma\n")
    write(d, "noheader.csv", b"1,2.5,x\n2,3.5,y\n3,4.5,z\n")
    write(d, "pipe.csv", b"k|v\na|1\nb|2\n")
    write(d, "excel-sep.csv", b"sep=;\r\nname;total\r\nAnna;1,5\r\nBob;2,25\r\n")
    write(d, "tabs.tsv", b"k\tv\na\t1\nb\t2\n")
    write(d, "utf16.csv", "k,v\nä,1\nö,2\n".encode("utf-16"))
    write(d, "garbage.csv", bytes(range(256)) * 64)
    write(d, "notes.txt", b"first line\nsecond line\n")
    write(d, "records.json", b'[{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": null}]')
    write(d, "odd name with spaces.csv", b"x,y\n1,2\n")
    write(d, "caf\u00e9 \u20ac.csv", b"x,y\n1,2\n")
    write(d, "new\nline.csv", b"x,y\n1,2\n")


def xlsx(d):
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2"])
    ws.append(["North", 10, 12.5])
    ws.append(["South", 7, 8])
    ws.append(["East", 3, None])
    ws.merge_cells("A6:C6")
    ws["A6"] = "Merged footer"
    ws2 = wb.create_sheet("Staff")
    ws2.append(["Name", "Age"])
    for i in range(20):
        ws2.append(["P%d" % i, 20 + i])
    wb.create_sheet("Empty")
    wb.save(os.path.join(d, "book.xlsx"))

    # A report as people make them: a title and a date above the table.
    import datetime
    wb = Workbook()
    ws = wb.active
    ws.title = "Report"
    ws["A1"] = "Sales report 2023"
    ws["A2"] = datetime.datetime(2024, 1, 15)
    ws.append([])
    ws.append(["Region", "Month", "Units", "Revenue"])
    for i, r in enumerate(["North", "South", "East", "West"]):
        ws.append([r, datetime.datetime(2023, i + 1, 1), 10 * (i + 1), 27607900 + i])
    wb.save(os.path.join(d, "titled.xlsx"))


MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"


def minimal_xlsx(path, sheet_xml, sst_writer):
    """An XLSX written by hand: one sheet whose cell A1 is shared string 0,
    with sharedStrings.xml produced by sst_writer(file)."""
    ct = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          '<Default Extension="xml" ContentType="application/xml"/>'
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
          '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
          '</Types>')
    rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="%s">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            '</Relationships>' % PKG_REL_NS)
    wb = ('<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="%s" xmlns:r="%s"><sheets>'
          '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>' % (MAIN_NS, REL_NS))
    wbrels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="%s">'
              '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
              '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
              '</Relationships>' % PKG_REL_NS)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", ct)
        z.writestr("_rels/.rels", rels)
        z.writestr("xl/workbook.xml", wb)
        z.writestr("xl/_rels/workbook.xml.rels", wbrels)
        z.writestr("xl/worksheets/sheet1.xml", sheet_xml)
        with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as f:
            sst_writer(f)


SHEET_A1 = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="%s"><sheetData>'
            '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1</v></c></row></sheetData></worksheet>' % MAIN_NS)


def xlsx_bomb(d, megabytes=3000):
    """A tiny XLSX whose sharedStrings.xml inflates to MEGABYTES of text."""
    def sst(f):
        f.write(('<?xml version="1.0" encoding="UTF-8"?><sst xmlns="%s" count="1" uniqueCount="1"><si><t>' % MAIN_NS).encode())
        block = b"A" * (1 << 20)
        for _ in range(megabytes):
            f.write(block)
        f.write(b"</t></si></sst>")
    minimal_xlsx(os.path.join(d, "bomb.xlsx"), SHEET_A1, sst)


def xlsx_laughs(d):
    """Billion laughs in sharedStrings.xml: 10^9 "lol"s if expanded."""
    lol = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
           + "".join('<!ENTITY lol%d "%s">' % (i, ("&lol%d;" % (i - 1) if i > 1 else "&lol;") * 10) for i in range(1, 10))
           + ']>\n<sst xmlns="%s" count="1" uniqueCount="1"><si><t>&lol9;</t></si></sst>' % MAIN_NS)
    minimal_xlsx(os.path.join(d, "laughs.xlsx"), SHEET_A1, lambda f: f.write(lol.encode()))


def xlsx_small_sst(d):
    """The same hand-written workbook with a harmless shared string: it must profile."""
    minimal_xlsx(os.path.join(d, "handmade.xlsx"), SHEET_A1,
                 lambda f: f.write(('<?xml version="1.0"?><sst xmlns="%s" count="1" uniqueCount="1">'
                                    '<si><t>hello</t></si></sst>' % MAIN_NS).encode()))


def ods(d):
    import pandas as pd

    with pd.ExcelWriter(os.path.join(d, "sheet.ods"), engine="odf") as w:
        pd.DataFrame({"city": ["Lyon", "Nice", "Metz"], "pop": [522000, 342000, 117000]}).to_excel(w, sheet_name="Cities", index=False)
        pd.DataFrame({"n": [1, 2]}).to_excel(w, sheet_name="Small", index=False)


def pdfs(d):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.backends.backend_pdf import PdfPages
    import matplotlib.pyplot as plt

    with PdfPages(os.path.join(d, "report.pdf")) as pdf:
        fig = plt.figure(figsize=(8.27, 11.69))
        fig.text(0.1, 0.9, "Quarterly report", fontsize=20)
        fig.text(0.1, 0.85, "Revenue grew in every region.", fontsize=12)
        pdf.savefig(fig)
        plt.close(fig)
        fig = plt.figure(figsize=(8.27, 11.69))
        fig.text(0.1, 0.9, "Table 1", fontsize=14)
        rows = [("Region", "Units", "Revenue"), ("North", "120", "3400"), ("South", "95", "2810"),
                ("East", "143", "4020"), ("West", "77", "1990")]
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                fig.text(0.1 + 0.25 * c, 0.8 - 0.03 * r, cell, fontsize=11, family="monospace")
        pdf.savefig(fig)
        plt.close(fig)

    # A "scanned" page: an image only, no text layer.
    import numpy as np
    fig = plt.figure(figsize=(4, 4))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.imshow(np.random.default_rng(0).random((64, 64)), cmap="gray")
    ax.axis("off")
    fig.savefig(os.path.join(d, "scanned.pdf"))
    plt.close(fig)

    from pypdf import PdfReader, PdfWriter
    w = PdfWriter()
    for p in PdfReader(os.path.join(d, "report.pdf")).pages:
        w.add_page(p)
    w.encrypt("secret", "owner-secret")
    with open(os.path.join(d, "locked.pdf"), "wb") as f:
        w.write(f)


def bench_csv(path, megabytes):
    import numpy as np

    rng = np.random.default_rng(1)
    regions = np.array(["North", "South", "East", "West", "Centre"])
    with open(path + ".tmp", "w") as f:
        f.write("id,date,region,units,price,discount,rating,flag,code,comment\n")
        i = 0
        while f.tell() < megabytes * 1024 * 1024:
            n = 50000
            ids = np.arange(i, i + n)
            days = rng.integers(0, 3650, n)
            units = rng.integers(0, 1000, n)
            price = rng.random(n) * 500
            disc = rng.random(n)
            rating = rng.integers(1, 6, n)
            flag = rng.integers(0, 2, n)
            reg = regions[rng.integers(0, 5, n)]
            base = np.datetime64("2015-01-01")
            lines = []
            for k in range(n):
                lines.append("%d,%s,%s,%d,%.2f,%.3f,%s,%s,C%05d,item %d of batch\n" % (
                    ids[k], base + int(days[k]), reg[k], units[k], price[k], disc[k],
                    "" if k % 97 == 0 else rating[k], "true" if flag[k] else "false", ids[k] % 99991, k))
            f.write("".join(lines))
            i += n
    os.rename(path + ".tmp", path)


def packed(d):
    """Compressed files: good ones, and the hostile kinds (a .gz that is not
    gzip, a damaged gzip, ZIP archives with many or path-traversal names)."""
    import bz2
    import gzip
    import lzma
    import zipfile

    table = b"city,when,count\nOslo,2012/01/31,3\nLima,2012/02/29,27607900\nPune,2013/12/01,5\n"
    write(d, "packed.csv.gz", gzip.compress(table))
    write(d, "packed.csv.bz2", bz2.compress(table))
    write(d, "packed.tsv.xz", lzma.compress(table.replace(b",", b"\t")))
    with zipfile.ZipFile(os.path.join(d, "one.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("folder/", b"")
        z.writestr("folder/inside.csv", table)
    write(d, "notgzip.csv.gz", table)
    write(d, "damaged.csv.gz", gzip.compress(table * 50)[:60])
    write(d, "image.bin.gz", gzip.compress(bytes(range(256)) * 64))
    with zipfile.ZipFile(os.path.join(d, "three.zip"), "w") as z:
        for i in range(3):
            z.writestr("part%d.csv" % i, table)
    with zipfile.ZipFile(os.path.join(d, "many.zip"), "w") as z:
        for i in range(10050):
            z.writestr("m%05d.csv" % i, b"a\n")
    with zipfile.ZipFile(os.path.join(d, "traversal.zip"), "w") as z:
        z.writestr("../../../../tmp/escaped.csv", table)


def stray_quotes(d):
    """A TSV whose quote marks enclose nothing (inches, a nickname): a csv
    reader that honours them merges hundreds of lines into one field."""
    lines = ["id\tname\tnote"]
    for i in range(3000):
        lines.append('%d\t"Big Joe\t12 inch' % i if i % 7 == 3 else "%d\tname %d\tplain" % (i, i))
    write(d, "stray-quotes.tsv", ("\n".join(lines) + "\n").encode())
    # .txt tables separated by | and by ; (a report export, a Unicode-style list).
    write(d, "export-pipes.txt", b"region|month|sales\nNorth|2024-01|27607900\nSouth|2024-01|1200\n"
                                 b"East|2024-02|5300\nWest|2024-02|880\n")
    write(d, "codes-semicolons.txt", b"# code list\n0041;LATIN CAPITAL LETTER A;Lu\n0042;LATIN CAPITAL LETTER B;Lu\n"
                                     b"0061;LATIN SMALL LETTER A;Ll\n0062;LATIN SMALL LETTER B;Ll\n")


def gzip_bomb(path, gigabytes):
    """A small .csv.gz that unpacks to @gigabytes GiB: one 16 MiB member
    repeated (concatenated gzip members are one valid stream)."""
    import gzip

    member = gzip.compress(b"1,2,3,4,5,6,7\n" * (16 * 1024 * 1024 // 14), compresslevel=9)
    with open(path, "wb") as f:
        for _ in range(int(gigabytes * 64) + 1):
            f.write(member)


def main():
    d = sys.argv[1]
    if len(sys.argv) > 3 and sys.argv[2] == "bomb-gz":
        gzip_bomb(d, float(sys.argv[3]))
        return
    if len(sys.argv) > 3 and sys.argv[2] == "bomb-xlsx":
        os.makedirs(d, exist_ok=True)
        xlsx_bomb(d, int(sys.argv[3]))
        return
    if len(sys.argv) > 2 and sys.argv[2] == "bench-csv":
        bench_csv(d, int(sys.argv[3]))
        return
    os.makedirs(d, exist_ok=True)
    csvs(d)
    xlsx(d)
    xlsx_laughs(d)
    xlsx_small_sst(d)
    ods(d)
    pdfs(d)
    packed(d)
    stray_quotes(d)


if __name__ == "__main__":
    main()
