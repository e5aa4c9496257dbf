// CSV text (a header line, no quoted newlines) as {columns, rows}; and saving text as a file.

export function parseCsv(text) {
  const lines = text.split("\n").filter((l) => l.length);
  const columns = (lines.shift() || "").split(",");
  const rows = lines.map((line) => {
    const out = [];
    let cur = "", quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c;
      } else if (c === '"') quoted = true;
      else if (c === ",") { out.push(cur); cur = ""; } else cur += c;
    }
    out.push(cur);
    return out;
  });
  return { columns, rows };
}

export function downloadText(text, filename) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// One hour's price series from its CSV: tickers' last trade price or klines' close.
export function priceSeries(csvText) {
  const { columns, rows } = parseCsv(csvText);
  const ts = columns.indexOf("ts"), px = columns.indexOf(columns.includes("last") ? "last" : "close");
  return [rows.map((r) => Number(r[ts])), rows.map((r) => Number(r[px]))];
}
