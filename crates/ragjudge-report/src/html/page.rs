//! The page's frame: escaping, the inline style sheet, the small inline table-sorting script,
//! tables and figures. Nothing here fetches anything: the content security policy forbids every
//! load but inline styles, inline scripts and `data:` images.

use ragjudge_charts::{render_svg, Chart};
use std::fmt::Write as _;

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number with `digits` decimals, or a dash when absent or not finite.
pub fn num(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.digits$}"),
        _ => "–".into(),
    }
}

/// A share as a whole percentage, or a dash.
pub fn pct(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{:.0}%", 100.0 * v),
        _ => "–".into(),
    }
}

/// The content security policy: no network, no external anything.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/// The whole document around `body`.
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        esc(title)
    )
}

const STYLE: &str = r#"
:root { --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; --soft:#f6f8fa; --warn:#9a6700; --warnbg:#fff8c5; --bad:#cf222e; --good:#1a7f37; }
* { box-sizing: border-box; }
body { margin:0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color:var(--fg); background:var(--bg); }
main { max-width: 1120px; margin: 0 auto; padding: 16px 20px 48px; }
header.top { border-bottom: 1px solid var(--line); margin-bottom: 8px; }
h1 { font-size: 1.6em; margin: 12px 0 4px; }
h2 { font-size: 1.3em; margin: 32px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 1.05em; margin: 20px 0 6px; }
p.lede { font-size: 1.15em; margin: 8px 0 12px; }
.muted { color: var(--muted); }
nav.toc { font-size: .92em; margin: 4px 0 8px; }
nav.toc a { margin-right: 12px; white-space: nowrap; }
a { color: #0969da; }
figure { margin: 12px 0 20px; }
figure svg { width: 100%; height: auto; max-width: 100%; display: block; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
figcaption { font-size: .9em; color: var(--muted); margin-top: 4px; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px 20px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: .92em; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); position: sticky; top: 0; }
th.sortable { cursor: pointer; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.warn { background: var(--warnbg); border: 1px solid #d4a72c; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.warn li { margin: 2px 0; }
.ok { color: var(--good); }
.bad { color: var(--bad); }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; font-size: .92em; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; overflow-wrap: anywhere; }
details { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
details > summary { cursor: pointer; font-weight: 600; }
.answers { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 8px; margin: 8px 0; }
.answer { background: var(--soft); border-radius: 6px; padding: 8px; font-size: .92em; overflow-wrap: anywhere; }
.answer th, .answer td { overflow-wrap: break-word; }
.answer h4 { margin: 0 0 4px; font-size: .95em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85em; background: var(--soft); padding: 6px; border-radius: 4px; margin: 4px 0; }
code { font-size: .9em; }
@media (max-width: 600px) { body { font-size: 14px; } main { padding: 8px 10px 32px; } .kv { grid-template-columns: 1fr; } .kv dd { margin-bottom: 4px; } }
"#;

/// Sorts a table by a clicked header (numbers numerically); the page reads the same without it.
const SCRIPT: &str = r#"
document.querySelectorAll('table.sortable').forEach(function (t) {
  t.querySelectorAll('th').forEach(function (th, i) {
    th.classList.add('sortable');
    th.title = 'sort';
    th.addEventListener('click', function () {
      var body = t.tBodies[0]; if (!body) return;
      var rows = Array.prototype.slice.call(body.rows);
      var dir = th.dataset.dir === 'asc' ? -1 : 1; th.dataset.dir = dir === 1 ? 'asc' : 'desc';
      rows.sort(function (a, b) {
        var x = a.cells[i] ? a.cells[i].textContent.trim() : '', y = b.cells[i] ? b.cells[i].textContent.trim() : '';
        var nx = parseFloat(x), ny = parseFloat(y);
        if (!isNaN(nx) && !isNaN(ny)) return dir * (nx - ny);
        return dir * x.localeCompare(y);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"#;

/// An HTML table, sortable by its headers when it has two rows or more; cells are already HTML.
pub struct Table {
    head: Vec<(String, bool)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these headers; `numeric[i]` right-aligns column `i`.
    pub fn new(head: &[(&str, bool)]) -> Self {
        Table { head: head.iter().map(|(h, n)| (esc(h), *n)).collect(), rows: Vec::new() }
    }

    /// Adds a row of HTML cells.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table's HTML, in a horizontally scrolling box.
    pub fn html(&self) -> String {
        let mut s = String::from("<div class=\"scroll\"><table");
        if self.rows.len() > 1 {
            s.push_str(" class=\"sortable\"");
        }
        s.push_str("><thead><tr>");
        for (h, n) in &self.head {
            let _ = write!(s, "<th{}>{h}</th>", if *n { " class=\"n\"" } else { "" });
        }
        s.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            s.push_str("<tr>");
            for (i, c) in r.iter().enumerate() {
                let n = self.head.get(i).is_some_and(|(_, n)| *n);
                let _ = write!(s, "<td{}>{c}</td>", if n { " class=\"n\"" } else { "" });
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table></div>");
        s
    }
}

/// A chart drawn inline as SVG in a figure, with its name as a caption for `ragjudge plot`;
/// a chart that cannot be drawn says why in its place.
pub fn figure(name: &str, chart: &Chart) -> String {
    match render_svg(chart, chart.suggested_size()) {
        Ok(svg) => format!(
            "<figure id=\"chart-{}\">{}<figcaption>{} <span class=\"muted\">(<code>ragjudge plot --chart {}</code>)</span></figcaption></figure>",
            esc(name),
            responsive(&svg),
            esc(&chart.title),
            esc(name)
        ),
        Err(e) => format!("<p class=\"warn\">Chart <code>{}</code> not drawn: {}</p>", esc(name), esc(&e.to_string())),
    }
}

/// An SVG that scales with its container: a `viewBox` from its size, no fixed width or height,
/// and no XML declaration (it is inlined).
pub fn responsive(svg: &str) -> String {
    let svg = svg.trim_start();
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(svg, |(_, r)| r.trim_start()),
        None => svg,
    };
    let Some(end) = svg.find('>') else { return svg.to_string() };
    let (open, rest) = svg.split_at(end);
    let attr = |name: &str| -> Option<String> {
        let key = format!(" {name}=\"");
        let i = open.find(&key)? + key.len();
        let j = open[i..].find('"')? + i;
        Some(open[i..j].to_string())
    };
    let (w, h) = (attr("width"), attr("height"));
    let mut new_open = open.to_string();
    for (name, value) in [("width", &w), ("height", &h)] {
        if let Some(v) = value {
            new_open = new_open.replacen(&format!(" {name}=\"{v}\""), "", 1);
        }
    }
    if attr("viewBox").is_none() {
        if let (Some(w), Some(h)) = (w, h) {
            new_open.push_str(&format!(" viewBox=\"0 0 {w} {h}\""));
        }
    }
    new_open.push_str(" role=\"img\"");
    format!("{new_open}{rest}")
}

/// A definition list of label / HTML value pairs.
pub fn key_values(items: &[(&str, String)]) -> String {
    let mut s = String::from("<dl class=\"kv\">");
    for (k, v) in items {
        let _ = write!(s, "<dt>{}</dt><dd>{v}</dd>", esc(k));
    }
    s.push_str("</dl>");
    s
}

/// A warning box listing `items` (plain text).
pub fn warnings(title: &str, items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut s = format!("<div class=\"warn\" role=\"note\"><strong>{}</strong><ul>", esc(title));
    for w in items {
        let _ = write!(s, "<li>{}</li>", esc(w));
    }
    s.push_str("</ul></div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(esc(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    #[test]
    fn responsive_svg_gets_a_view_box_and_loses_its_fixed_size() {
        let svg =
            r#"<?xml version="1.0"?><svg width="720" height="405" xmlns="http://www.w3.org/2000/svg"><rect/></svg>"#;
        assert_eq!(
            responsive(svg),
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 405" role="img"><rect/></svg>"#
        );
    }

    #[test]
    fn numbers_never_print_nan() {
        assert_eq!(num(Some(f64::NAN), 2), "–");
        assert_eq!(num(Some(0.126), 2), "0.13");
        assert_eq!(pct(Some(0.666)), "67%");
        assert_eq!(pct(None), "–");
    }
}
