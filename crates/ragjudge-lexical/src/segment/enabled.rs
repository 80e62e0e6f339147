//! jieba-rs with its bundled dictionary, loaded once, with two corrections that make its cut equal
//! to Python jieba 0.42.1's `jieba.cut(text)`:
//!
//! * Python jieba's blocks are runs of `[\u4E00-\u9FD5a-zA-Z0-9+#&._%-]`; jieba-rs also counts
//!   U+9FD6..U+9FFF and the CJK extensions (e.g. `𠀀`, Extension A/B) as Chinese. Every non-ASCII
//!   character outside U+4E00..=U+9FD5 is therefore cut off as a token of its own first, as Python
//!   does, and jieba-rs only sees the runs between them.
//! * Python sends a run of characters that no dictionary word covers to `finalseg.cut`, which
//!   splits its non-Chinese part at `([a-zA-Z0-9]+(?:\.\d+)?%?)` (so `x.y`, `2024-06-01`,
//!   `test_user` fall apart); jieba-rs keeps such runs whole. A token of more than one character
//!   that is not a dictionary word and holds a character outside U+4E00..=U+9FD5 is split the
//!   same way here.

use std::sync::OnceLock;

use jieba_rs::Jieba;

pub(super) const JIEBA: bool = true;

fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

/// `[\u4E00-\u9FD5]` of Python jieba (`re_han` of `finalseg`).
fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fd5}').contains(&c)
}

pub(super) fn cut(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if !c.is_ascii() && !is_han(c) {
            if start < i {
                cut_block(&text[start..i], &mut out);
            }
            out.push(&text[i..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < text.len() {
        cut_block(&text[start..], &mut out);
    }
    out
}

pub(super) fn tag(text: &str) -> Vec<super::Tagged<'_>> {
    let j = jieba();
    j.tag(text, true)
        .into_iter()
        .map(|t| super::Tagged { word: t.word, tag: t.tag, known: j.has_word(t.word) })
        .collect()
}

fn cut_block<'a>(block: &'a str, out: &mut Vec<&'a str>) {
    let j = jieba();
    for tok in j.cut(block, true) {
        let w = tok.word;
        if w.chars().nth(1).is_none() || w.chars().all(is_han) || j.has_word(w) {
            out.push(w);
        } else {
            finalseg_split(w, out);
        }
    }
}

/// `finalseg.cut` on a run jieba-rs returned whole: Chinese runs kept, the rest split by
/// `re_skip = ([a-zA-Z0-9]+(?:\.\d+)?%?)` (`re.split` with a group: matches and the pieces between).
fn finalseg_split<'a>(w: &'a str, out: &mut Vec<&'a str>) {
    let b = w.as_bytes();
    let mut i = 0;
    let mut piece = 0;
    while i < w.len() {
        let c = w[i..].chars().next().unwrap_or('\0');
        if is_han(c) {
            let end = w[i..].char_indices().find(|&(_, c)| !is_han(c)).map_or(w.len(), |(k, _)| i + k);
            if piece < i {
                out.push(&w[piece..i]);
            }
            out.push(&w[i..end]);
            i = end;
            piece = end;
        } else if c.is_ascii_alphanumeric() {
            let mut end = i;
            while end < b.len() && b[end].is_ascii_alphanumeric() {
                end += 1;
            }
            if end + 1 < b.len() && b[end] == b'.' && b[end + 1].is_ascii_digit() {
                end += 1;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
            }
            if end < b.len() && b[end] == b'%' {
                end += 1;
            }
            if piece < i {
                out.push(&w[piece..i]);
            }
            out.push(&w[i..end]);
            i = end;
            piece = end;
        } else {
            i += c.len_utf8();
        }
    }
    if piece < w.len() {
        out.push(&w[piece..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tags of Python `jieba.posseg.cut(text)` (jieba 0.42.1); 王颖 and 慈星 are not dictionary
    /// words (their tags come from the HMM).
    #[test]
    fn tags_and_known_words() {
        let tagged: Vec<_> = tag("王颖认为欧盟委员会和慈星").into_iter().map(|t| (t.word, t.tag, t.known)).collect();
        assert_eq!(tagged[0], ("王颖", "nr", false));
        assert_eq!(tagged[1], ("认为", "v", true));
        assert_eq!(tagged[2], ("欧盟委员会", "nt", true));
        assert_eq!(tagged[3], ("和", "c", true));
        assert_eq!(tagged[4], ("慈星", "nr", false));
        assert_eq!(tagged.len(), 5);
    }

    /// Expected pieces from Python `jieba.finalseg.re_skip.split(s)` (empty pieces dropped).
    #[test]
    fn re_skip_split() {
        let split = |s| {
            let mut out = Vec::new();
            finalseg_split(s, &mut out);
            out
        };
        assert_eq!(split("2024-06-01"), ["2024", "-", "06", "-", "01"]);
        assert_eq!(split("x.y"), ["x", ".", "y"]);
        assert_eq!(split("1.25%.."), ["1.25%", ".."]);
        assert_eq!(split("3.14.15"), ["3.14", ".", "15"]);
        assert_eq!(split("_a_"), ["_", "a", "_"]);
    }
}
