// Syntax colouring of Java and QTScript for the code viewer, in one pass per line.
//
// The line is cut into tokens first (comment, string, number, keyword) and each piece is
// escaped and wrapped on its own. Earlier the passes ran one after another over the markup,
// so the keyword pass matched `class` inside the `<span class="str">` it had just inserted.
import { esc } from "./dom.js";

const KEYWORDS = "abstract|boolean|break|case|catch|class|continue|default|do|double|else|extends|final|float|for|if|implements|import|int|long|new|package|private|protected|public|return|static|strategy|super|switch|this|throw|throws|try|var|void|while|when|window|on|let|param";
const TOKEN = new RegExp(`(//.*$)|("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?)|(\\b\\d+(?:\\.\\d+)?\\b)|(\\b(?:${KEYWORDS})\\b)`, "g");
const CLASSES = [null, "com", "str", "num", "kw"];

export function highlightLine(line) {
  let html = "", at = 0;
  for (const m of line.matchAll(TOKEN)) {
    html += esc(line.slice(at, m.index));
    const group = m.findIndex((g, i) => i > 0 && g !== undefined);
    html += `<span class="${CLASSES[group]}">${esc(m[0])}</span>`;
    at = m.index + m[0].length;
  }
  return html + esc(line.slice(at));
}

// One block per line (the line number is CSS), error lines marked; the lines' text joined by
// newlines is exactly the source.
export function highlight(code, errorLines = new Set()) {
  return code.split("\n").map((line, i) => `<span class="ln${errorLines.has(i + 1) ? " err" : ""}">${highlightLine(line)}</span>`).join("");
}

export function errorLinesOf(message) {
  const lines = new Set();
  for (const m of String(message).matchAll(/Line (\d+), Column \d+/g)) lines.add(Number(m[1]));
  for (const m of String(message).matchAll(/(?:^|\s)(?:\S+\.java)?:(\d+):/g)) lines.add(Number(m[1]));
  return lines;
}
