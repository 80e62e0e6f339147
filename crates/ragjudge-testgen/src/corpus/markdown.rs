//! Markdown to plain text through a CommonMark parser (`pulldown-cmark`): the text of
//! paragraphs, headings, list items, quotes, tables and code blocks, one block per paragraph;
//! markup, link targets and images' URLs left out.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::html::tidy_blocks;

/// The first heading (if any) and the text of a Markdown document.
pub fn markdown_to_text(source: &str) -> (Option<String>, String) {
    let mut out = String::new();
    let mut title: Option<String> = None;
    let mut heading: Option<String> = None;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(source, options) {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                out.push_str("\n\n");
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(_)) => {
                out.push_str("\n\n");
                if let Some(h) = heading.take() {
                    if title.is_none() && !h.trim().is_empty() {
                        title = Some(h.trim().to_string());
                    }
                }
            }
            Event::Start(Tag::Paragraph | Tag::Item | Tag::BlockQuote(_) | Tag::CodeBlock(_) | Tag::TableRow)
            | Event::End(
                TagEnd::Paragraph | TagEnd::Item | TagEnd::BlockQuote(_) | TagEnd::CodeBlock | TagEnd::TableRow,
            ) => out.push_str("\n\n"),
            Event::End(TagEnd::TableCell) => out.push(' '),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
                out.push_str(&t);
            }
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push('\n'),
            Event::Rule => out.push_str("\n\n"),
            _ => {}
        }
    }
    (title, tidy_blocks(&out))
}
