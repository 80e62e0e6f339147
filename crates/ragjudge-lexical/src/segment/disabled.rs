//! Without the `zh` feature: CJK ideographs one by one, other characters in runs split at
//! whitespace and at ideographs (each whitespace character is a token, as in jieba).

use crate::rake::is_cjk_ideograph;

pub(super) const JIEBA: bool = false;

pub(super) fn cut(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if is_cjk_ideograph(c) || c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            out.push(&text[i..i + c.len_utf8()]);
        } else {
            start.get_or_insert(i);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

pub(super) fn tag(text: &str) -> Vec<super::Tagged<'_>> {
    cut(text).into_iter().map(|word| super::Tagged { word, tag: "x", known: false }).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ideographs_and_runs() {
        assert_eq!(super::cut("北京 ab,c\n"), ["北", "京", " ", "ab,c", "\n"]);
    }
}
