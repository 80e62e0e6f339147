//! Text utilities for metrics: sentence splitting and word tokens for English and Chinese.
//!
//! Choices, made to stay dependency-free and deterministic:
//! - **Sentences** ([`split_sentences`]). English: a sentence ends after a run of `.`, `!`, `?`
//!   (so `?!` and `...` are one end), plus any closing quotes or brackets, when followed by
//!   whitespace and then something that can start a sentence (an upper-case or caseless letter,
//!   a digit, an opening quote or bracket, a CJK character) or by the end of the text. A lone `.`
//!   does not end a sentence after a common abbreviation (`Mr`, `Dr`, `etc`, `e.g`, `Inc`,
//!   `U.S`, ...), a dotted acronym, or a single capital initial other than `I` (`J. K. Rowling`).
//!   Decimals (`3.14`), URLs and e-mail addresses never split because no whitespace follows their
//!   dots. Chinese: `。！？；．` end a sentence with no whitespace needed, as do `…` and ASCII
//!   `.!?` right after a CJK character; following closing quotes (`」』”）`) stay with it. A blank
//!   line always ends a sentence. Sentences are trimmed and never empty.
//! - **Words** ([`words`]). A word is a maximal run of Unicode alphanumeric characters (with
//!   combining marks), keeping an apostrophe between letters (`don't`, `O'Brien`) and a `.` or
//!   `,` between digits (`3.14`, `1,000`). Hyphens split (`state-of-the-art` is four words), as
//!   most ROUGE/BLEU tokenisers do. Each CJK ideograph, kana or hangul syllable is a word of its
//!   own: Chinese is compared by characters, with no segmenter dependency. Punctuation is never a
//!   word.
//! - **Language** ([`detect_lang`]): Chinese when Han ideographs are at least 30% of the letters.

/// Whether `c` is a CJK ideograph, a kana, or a hangul syllable/jamo.
pub fn is_cjk(c: char) -> bool {
    is_han(c)
        || matches!(c as u32,
            0x3040..=0x30FF      // hiragana, katakana
            | 0x31F0..=0x31FF    // katakana phonetic extensions
            | 0xFF66..=0xFF9D    // half-width katakana
            | 0x1100..=0x11FF    // hangul jamo
            | 0x3130..=0x318F    // hangul compatibility jamo
            | 0xAC00..=0xD7AF) // hangul syllables
}

/// Whether `c` is a Han (CJK unified or compatibility) ideograph.
fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF        // extension A
        | 0x4E00..=0x9FFF      // unified ideographs
        | 0xF900..=0xFAFF      // compatibility ideographs
        | 0x20000..=0x2EBEF    // extensions B-F
        | 0x2F800..=0x2FA1F    // compatibility supplement
        | 0x30000..=0x3134F) // extension G
}

/// A combining mark that continues a word (diacritics, Indic and Thai vowel signs).
fn is_mark(c: char) -> bool {
    let u = c as u32;
    matches!(u, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
        || ((0x0900..=0x0DFF).contains(&u) && !c.is_alphanumeric() && !matches!(u, 0x0964 | 0x0965 | 0x0970))
        || matches!(u, 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E)
}

/// The language of a text, as far as metrics need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English (and any other non-Chinese text).
    #[default]
    En,
    /// Chinese.
    Zh,
}

impl Lang {
    /// `en` or `zh`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The language of a code: `en`, `zh` (case-insensitive; `zh-CN`, `zh_TW`, `en-US`... too).
    pub fn from_code(code: &str) -> Option<Self> {
        let primary = code.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }
}

/// [`Lang::Zh`] when Han ideographs are at least 30% of the alphabetic characters, else
/// [`Lang::En`] (also for text without letters).
pub fn detect_lang(text: &str) -> Lang {
    let (mut han, mut letters) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        if is_han(c) {
            han += 1;
        }
    }
    if letters > 0 && han * 10 >= letters * 3 {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// Word tokens of `text`, in order (see the module docs for what a word is).
pub fn words(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let wordish = |c: char| c.is_alphanumeric() && !is_cjk(c);
    for (k, &(i, c)) in chars.iter().enumerate() {
        if is_cjk(c) {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            out.push(&text[i..i + c.len_utf8()]);
            continue;
        }
        if c.is_alphanumeric() || (start.is_some() && is_mark(c)) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start {
            let prev = chars[k - 1].1;
            let next = chars.get(k + 1).map(|&(_, n)| n);
            let joins = match c {
                '\'' | '\u{2019}' => wordish(prev) && next.is_some_and(wordish),
                '.' | ',' => prev.is_numeric() && next.is_some_and(char::is_numeric),
                _ => false,
            };
            if !joins {
                out.push(&text[s..i]);
                start = None;
            }
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// Abbreviations after which a lone `.` does not end a sentence (compared ignoring case,
/// except `No` which must be capitalised so that "the answer is no." still ends).
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd", "co", "fig", "u.s",
    "cf", "al", "approx", "vol", "pp", "mt", "dept", "gen", "gov", "lt", "col", "sgt", "capt", "rev", "ave", "corp",
    "ph.d", "figs", "eq", "eqs",
];

/// Full-width terminators that end a sentence without whitespace after them.
fn is_wide_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '；' | '．' | '｡')
}

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…') || is_wide_terminator(c)
}

/// Closing quotes and brackets kept with the sentence they end.
fn is_closer(c: char) -> bool {
    matches!(c, '"' | '\'' | '”' | '’' | ')' | ']' | '}' | '»' | '」' | '』' | '）' | '】' | '》' | '〉' | '］')
}

/// Whether `c` may begin a new English sentence.
fn starts_sentence(c: char) -> bool {
    c.is_uppercase()
        || c.is_numeric()
        || is_cjk(c)
        || matches!(c, '"' | '\'' | '“' | '‘' | '(' | '[' | '{' | '«' | '「' | '『' | '（' | '《' | '【')
        || (c.is_alphabetic() && !c.is_lowercase())
}

/// Whether the word ending just before the `.` at char index `k` is an abbreviation.
fn is_abbreviation(text: &str, chars: &[(usize, char)], k: usize) -> bool {
    let mut w = k;
    while w > 0 && (chars[w - 1].1.is_alphanumeric() || chars[w - 1].1 == '.') {
        w -= 1;
    }
    let word = text[chars[w].0..chars[k].0].trim_start_matches('.');
    if word.is_empty() {
        return false;
    }
    let mut letters = word.chars();
    let first = letters.next().unwrap_or(' ');
    if letters.next().is_none() {
        // A single capital initial, but not the pronoun "I".
        return first.is_uppercase() && first != 'I';
    }
    if word == "No" {
        return true;
    }
    let lower = word.to_lowercase();
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    // Dotted acronyms: "U.K", "a.m", "U.S.A".
    word.contains('.') && word.split('.').all(|seg| seg.chars().count() == 1 && seg.chars().all(char::is_alphabetic))
}

/// Splits `text` into trimmed, non-empty sentences (see the module docs for the rules).
pub fn split_sentences<'a>(text: &'a str) -> Vec<&'a str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let byte = |k: usize| if k < n { chars[k].0 } else { text.len() };
    let mut out: Vec<&str> = Vec::new();
    let mut push = |s: &'a str| {
        let s = s.trim();
        if !s.is_empty() {
            out.push(s);
        }
    };
    let mut start = 0usize;
    let mut k = 0usize;
    while k < n {
        let c = chars[k].1;
        if c == '\n' {
            let mut j = k + 1;
            while j < n && chars[j].1 != '\n' && chars[j].1.is_whitespace() {
                j += 1;
            }
            if j < n && chars[j].1 == '\n' {
                push(&text[start..byte(k)]);
                start = byte(j);
                k = j;
            } else {
                k += 1;
            }
            continue;
        }
        if !is_terminator(c) {
            k += 1;
            continue;
        }
        let mut j = k;
        while j < n && is_terminator(chars[j].1) {
            j += 1;
        }
        let mut e = j;
        while e < n && is_closer(chars[e].1) {
            e += 1;
        }
        let wide = chars[k..j].iter().any(|&(_, t)| is_wide_terminator(t));
        let after_cjk = k > 0 && is_cjk(chars[k - 1].1);
        let split = if wide || after_cjk || e == n {
            true
        } else if chars[e].1.is_whitespace() {
            let mut m = e;
            while m < n && chars[m].1.is_whitespace() {
                m += 1;
            }
            let next_ok = m == n || starts_sentence(chars[m].1);
            let lone_dot = j == k + 1 && c == '.';
            next_ok && !(lone_dot && is_abbreviation(text, &chars, k))
        } else {
            // "Good!我们" : an ASCII `!?…` directly before CJK text.
            c != '.' && is_cjk(chars[e].1)
        };
        if split {
            push(&text[start..byte(e)]);
            start = byte(e);
        }
        k = e;
    }
    push(&text[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_ranges() {
        assert!(is_cjk('中'));
        assert!(is_cjk('の'));
        assert!(is_cjk('한'));
        assert!(!is_cjk('a'));
        assert!(!is_cjk('。'));
    }

    #[test]
    fn language() {
        assert_eq!(detect_lang("检索增强生成 is RAG"), Lang::Zh); // 6 han of 11 letters
        assert_eq!(detect_lang("Retrieval augmented generation 检索"), Lang::En); // 2 of 30
        assert_eq!(detect_lang(""), Lang::En);
        assert_eq!(detect_lang("123 !!"), Lang::En);
    }
}
