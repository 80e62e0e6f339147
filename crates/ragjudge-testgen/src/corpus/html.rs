//! HTML to plain text through a real HTML5 parser (html5ever, via `scraper`): the text of the
//! body in document order, block elements separated by blank lines, `<br>` as a line break,
//! scripts, styles and other non-content elements left out.

use ego_tree::iter::Edge;
use scraper::{Html, Node, Selector};

/// Elements whose content is never text of the document.
const HIDDEN: &[&str] = &["script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object"];

/// Elements that start a new block of text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "td",
    "th",
    "tr",
    "ul",
    "caption",
];

/// The `<title>` (if any) and the body text of an HTML document.
pub fn html_to_text(source: &str) -> (Option<String>, String) {
    let doc = Html::parse_document(source);
    let title = Selector::parse("title")
        .ok()
        .and_then(|sel| doc.select(&sel).next())
        .map(|t| collapse_spaces(&t.text().collect::<String>()))
        .filter(|t| !t.is_empty());
    let mut out = String::new();
    let mut hidden = 0usize;
    for edge in doc.root_element().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(e) => {
                    let name = e.name();
                    if HIDDEN.contains(&name) {
                        hidden += 1;
                    } else if hidden == 0 && name == "br" {
                        out.push('\n');
                    } else if hidden == 0 && BLOCKS.contains(&name) {
                        out.push_str("\n\n");
                    }
                }
                Node::Text(t) if hidden == 0 => out.push_str(t),
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(e) = node.value() {
                    let name = e.name();
                    if HIDDEN.contains(&name) {
                        hidden -= 1;
                    } else if hidden == 0 && BLOCKS.contains(&name) {
                        out.push_str("\n\n");
                    }
                }
            }
        }
    }
    (title, tidy_blocks(&out))
}

/// Runs of whitespace as one space, trimmed.
fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Spaces collapsed within lines, lines trimmed, blocks separated by exactly one blank line.
pub(crate) fn tidy_blocks(s: &str) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in s.split('\n') {
        let line = collapse_spaces(line);
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank { "\n\n" } else { "\n" });
        }
        out.push_str(&line);
        blank = false;
    }
    out
}
