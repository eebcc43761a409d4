#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the artifacts that sample-transcript.json names (a table, a native
# chart, a matplotlib figure, a CSV file) into the folder given, with the
# kernel's own writers (sandbox/kernel/reckon), so the rows render real data.
import os
import sys

workspace = os.path.abspath(sys.argv[1])
os.makedirs(workspace, exist_ok=True)
os.environ["RECKON_WORKSPACE"] = workspace
os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "sandbox", "kernel"))

import pandas as pd                     # noqa: E402
import matplotlib.pyplot as plt         # noqa: E402
from reckon import table                # noqa: E402
from reckon.chart import chart          # noqa: E402

months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]
df = pd.DataFrame({
    "month": months,
    "north": [1200, 1350, 1510, 1420, 1600, 1720],
    "south": [980, 1010, 1190, 1250, 1300, 1280],
})
df["total"] = df["north"] + df["south"]
os.makedirs(os.path.join(workspace, "tables"), exist_ok=True)
table.write(df, os.path.join(workspace, "tables", "table-1.rkt"))

spec = chart(df, kind="line", x="month", y=["north", "south"], title="Sales by month")
print("chart:", spec.path)

os.makedirs(os.path.join(workspace, "figures"), exist_ok=True)
fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
ax.bar(df["month"], df["total"], color="#3584e4")
ax.set_title("Total sales")
fig.tight_layout()
fig.savefig(os.path.join(workspace, "figures", "fig-1.png"))

df.to_csv(os.path.join(workspace, "sales-summary.csv"), index=False)
print(workspace)
