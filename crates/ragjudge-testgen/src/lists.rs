//! Enumerations in source sentences ("涉及上市公司包括上海电气、中国一重和东方电气", "Rust
//! offers ownership, borrowing, and lifetimes"). A question whose answer is one member of such a
//! list has more than one right answer, or a reference that gives only part of the answer (HCAT
//! section 2: references that answer their question). [`co_listed`] finds a multiple-choice item
//! whose right option and a wrong one are listed together in a source; [`unnamed_member`] finds a
//! free-text reference that names some members of a list where the judge's own answer from the
//! same sources names another.
//!
//! A list is found in a clause (cut at `，；;：:。！？()（）` and quotes: the full-width comma
//! never separates the members of a Chinese list, 、 does): in Chinese, pieces cut
//! at the enumeration comma `、`, the last one cut again at its first 以及/及/和/与/或; in English,
//! pieces cut at ", " where the last piece starts with, or holds, "and"/"or" and every piece but
//! the first and the last has at most [`MAX_MIDDLE_WORDS`] words (so that "In 1455, Gutenberg
//! printed the Bible, and it sold well" is not a list); a list opened by "including", "such as",
//! "namely" or "like" starts there and may end before its clause does ("Many central banks,
//! including the US Federal Reserve, the European Central Bank and the Bank of England, aim ..."). Two items joined by "and" alone, or by 和
//! alone, are not taken for a list: too many clauses look like that.

use ragjudge_core::text::split_sentences;

/// Most words of an English list piece between the first and the last, after a leading article.
pub const MAX_MIDDLE_WORDS: usize = 3;

/// Marks that end the clause a list can sit in.
const CLAUSE_ENDS: [char; 19] =
    [';', ':', '，', '；', '：', '。', '！', '？', '(', ')', '（', '）', '"', '“', '”', '「', '」', '《', '》'];

/// Chinese words that join the last two members.
const JOINERS_ZH: [&str; 5] = ["以及", "及", "和", "与", "或"];

/// One enumeration, its pieces lower-cased, in order. The first piece runs from the start of its
/// clause and the last to its end: a member is the end of the first piece, a whole middle piece,
/// or the start of the last.
#[derive(Debug, Clone, PartialEq)]
pub struct List {
    pieces: Vec<String>,
}

impl List {
    /// The position of the piece `text` is a member of, if any: `text` (trimmed of spaces,
    /// punctuation, a trailing 等 and a leading English article; lower-cased; two characters at
    /// least) ends the first piece, is a middle piece, or starts the last, at a word boundary in
    /// English.
    pub fn member(&self, text: &str) -> Option<usize> {
        let x = normalise(text);
        if x.chars().count() < 2 {
            return None;
        }
        let last = self.pieces.len() - 1;
        self.pieces.iter().position(|p| p.as_str() == x).or_else(|| {
            let first = self.pieces[0].strip_suffix(x.as_str()).is_some_and(|before| boundary(before.chars().last()));
            let end = self.pieces[last].strip_prefix(x.as_str()).is_some_and(|after| boundary(after.chars().next()));
            if first {
                Some(0)
            } else if end {
                Some(last)
            } else {
                None
            }
        })
    }
}

/// Whether a member may end (or start) next to `c`: anything but a Latin letter or digit does.
fn boundary(c: Option<char>) -> bool {
    c.is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// `text` trimmed of spaces, punctuation, a trailing 等 and a leading "the"/"a"/"an", lower-cased.
fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let t = lower.trim_matches(|c: char| {
        c.is_whitespace() || (c.is_ascii_punctuation() && c != '%') || "，、。；：！？".contains(c)
    });
    let t = t.strip_suffix('等').unwrap_or(t).trim();
    ["the ", "a ", "an "].iter().find_map(|a| t.strip_prefix(a)).unwrap_or(t).trim().to_string()
}

/// Whether an English piece between the first and the last is short enough to be a member: at
/// most [`MAX_MIDDLE_WORDS`] words after a leading article.
fn short_piece(piece: &str) -> bool {
    normalise(piece).split_whitespace().count() <= MAX_MIDDLE_WORDS
}

/// The list `clause` holds, if it holds one.
fn clause_list(clause: &str) -> Option<List> {
    let mut pieces: Vec<String> = Vec::new();
    if clause.contains('、') {
        pieces = clause.split('、').map(str::to_string).collect();
        let tail = pieces.pop().unwrap_or_default();
        let cut = JOINERS_ZH.iter().filter_map(|j| tail.find(j).map(|at| (at, j.len()))).min();
        match cut {
            Some((at, len)) if at > 0 => {
                pieces.push(tail[..at].to_string());
                pieces.push(tail[at + len..].to_string());
            }
            _ => pieces.push(tail),
        }
    } else if let Some((start, first)) = introducer(clause) {
        pieces = introduced_list(clause, start, first)?;
    } else if clause.contains(", ") {
        pieces = clause.split(", ").map(str::to_string).collect();
        let tail = pieces.pop().unwrap_or_default();
        if let Some(rest) = tail.strip_prefix("and ").or_else(|| tail.strip_prefix("or ")) {
            pieces.push(rest.to_string());
        } else if let Some(at) = tail.find(" and ").or_else(|| tail.find(" or ")) {
            let len = if tail[at..].starts_with(" and ") { 5 } else { 4 };
            pieces.push(tail[..at].to_string());
            pieces.push(tail[at + len..].to_string());
        } else {
            return None;
        }
        let middle = &pieces[1..pieces.len() - 1];
        if !middle.iter().all(|p| short_piece(p)) {
            return None;
        }
    }
    let pieces: Vec<String> = pieces.iter().map(|p| normalise(p)).collect();
    (pieces.len() >= 2 && pieces.iter().all(|p| !p.is_empty())).then_some(List { pieces })
}

/// Words that open an English list inside a clause ("Many central banks, including the US
/// Federal Reserve, the European Central Bank and the Bank of England, aim ...").
const INTRODUCERS: [&str; 4] = ["including ", "such as ", "namely ", "like "];

/// The piece of `clause` (cut at ", ") that opens a list with one of [`INTRODUCERS`], and what
/// follows the word there.
fn introducer(clause: &str) -> Option<(usize, String)> {
    clause.split(", ").enumerate().find_map(|(i, p)| {
        let lower = p.to_lowercase();
        let at_word =
            |w: &&str| lower.rfind(*w).filter(|&at| at == 0 || lower[..at].ends_with(' ')).map(|at| at + w.len());
        INTRODUCERS.iter().find_map(at_word).map(|at| (i, p[at..].to_string()))
    })
}

/// The pieces of an English list opened by one of [`INTRODUCERS`] in a piece cut at ", ", with
/// its next pieces up to the first that holds "and"/"or": the list may end before its clause
/// does. Each piece between the first and the last has at most [`MAX_MIDDLE_WORDS`] words.
fn introduced_list(clause: &str, start: usize, first: String) -> Option<Vec<String>> {
    let raw: Vec<&str> = clause.split(", ").collect();
    let joined = |p: &str| {
        let at = p.strip_prefix("and ").or_else(|| p.strip_prefix("or ")).map(|rest| (String::new(), rest.to_string()));
        at.or_else(|| {
            let at = p.find(" and ").map(|i| (i, 5)).or_else(|| p.find(" or ").map(|i| (i, 4)))?;
            Some((p[..at.0].to_string(), p[at.0 + at.1..].to_string()))
        })
    };
    if joined(&first).is_some() {
        // "including A and B, ...": two items joined by "and" alone are not taken for a list.
        return None;
    }
    let mut pieces = vec![first];
    for p in &raw[start + 1..] {
        if let Some((before, after)) = joined(p) {
            if !before.is_empty() {
                pieces.push(before);
            }
            pieces.push(after);
            let middle = &pieces[1..pieces.len() - 1];
            let short = middle.iter().all(|m| short_piece(m));
            return (pieces.len() >= 3 && short).then_some(pieces);
        }
        pieces.push(p.to_string());
    }
    None
}

/// The lists in `text`, sentence by sentence and clause by clause.
pub fn lists(text: &str) -> Vec<List> {
    split_sentences(text)
        .into_iter()
        .flat_map(|s| s.split(|c| CLAUSE_ENDS.contains(&c)))
        .filter_map(clause_list)
        .collect()
}

/// Whether `a` and `b` are different members of one list of `sources`: "百济神州" and
/// "泽璟制药" in "今年包括百济神州、泽璟制药、迈威生物在内的众多国产药企，均实现参展ASCO".
pub fn co_listed(sources: &[&str], a: &str, b: &str) -> bool {
    sources.iter().flat_map(|s| lists(s)).any(|l| match (l.member(a), l.member(b)) {
        (Some(i), Some(j)) => i != j,
        _ => false,
    })
}

/// The items of an answer: its text cut at commas, semicolons, the enumeration comma, and the
/// words "and", "or", 以及, 及, 和, 与, 或.
fn items(text: &str) -> Vec<&str> {
    let mut out = vec![text];
    for sep in [",", "，", "、", ";", "；", " and ", " or ", "以及", "及", "和", "与", "或"] {
        out = out.iter().flat_map(|t| t.split(sep)).collect();
    }
    out.into_iter().map(str::trim).filter(|t| !t.is_empty()).collect()
}

/// A member of a list in `sources` that `judge` (the judge's own answer) names and `reference`
/// does not, where `reference` names another member of the same list: the reference gives one
/// of several right answers ("上海电气" where the source lists 上海电气、中国一重和东方电气 and
/// the judge answers all three).
pub fn unnamed_member(sources: &[&str], reference: &str, judge: &str) -> Option<String> {
    let (named, said) = (items(reference), items(judge));
    let reference = normalise(reference);
    sources.iter().flat_map(|s| lists(s)).find_map(|l| {
        let ours: Vec<usize> = named.iter().filter_map(|t| l.member(t)).collect();
        if ours.is_empty() {
            return None;
        }
        said.iter()
            .find(|t| l.member(t).is_some_and(|i| !ours.contains(&i)) && !reference.contains(&normalise(t)))
            .map(|t| t.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZH: &str = "今年包括百济神州、泽璟制药、迈威生物在内的众多国产药企，均实现参展ASCO并发表报告。\
        其中压力容器及蒸汽发生器成本占比最高达到40%，涉及上市公司包括上海电气、中国一重和东方电气；\
        主管道及热交换系统成本占比20%。";
    const EN: &str = "Rust prevents data races with ownership, borrowing, and lifetimes. In 1455, Gutenberg \
        printed the Bible, and it sold well. Tea and coffee are drinks.";

    /// Read on examples/corpus: "Which central bank is known for aiming to keep inflation at
    /// around 2 percent?" kept "The US Federal Reserve" as its one right option.
    const BANKS: &str = "Many central banks, including the US Federal Reserve, the European Central Bank and \
        the Bank of England, aim to keep inflation at around 2 percent over the medium term.";

    fn pieces(text: &str) -> Vec<Vec<String>> {
        lists(text).into_iter().map(|l| l.pieces).collect()
    }

    #[test]
    fn lists_are_cut_at_enumeration_commas_and_the_last_joiner() {
        assert_eq!(
            pieces(ZH),
            vec![
                vec!["今年包括百济神州", "泽璟制药", "迈威生物在内的众多国产药企"],
                vec!["涉及上市公司包括上海电气", "中国一重", "东方电气"],
            ]
        );
        // The middle piece of the second sentence has four words: a clause, not a list member;
        // "Tea and coffee" has no comma.
        assert_eq!(pieces(EN), vec![vec!["rust prevents data races with ownership", "borrowing", "lifetimes"]]);
        assert_eq!(pieces("We sell apples, pears or plums."), vec![vec!["we sell apples", "pears", "plums"]]);
    }

    #[test]
    fn a_list_opened_by_including_ends_at_its_last_member() {
        assert_eq!(pieces(BANKS), vec![vec!["us federal reserve", "european central bank", "bank of england"]]);
        assert_eq!(
            pieces("Sports like tennis, golf, and cricket are popular."),
            vec![vec!["tennis", "golf", "cricket are popular"]]
        );
        // Two items, or one and a clause, are not a list; "unlike" does not open one.
        assert_eq!(pieces("Fruits such as apples and pears, grow well."), Vec::<Vec<String>>::new());
        assert_eq!(pieces("He saw many places, including Paris, and then went home."), Vec::<Vec<String>>::new());
        assert_eq!(pieces("Unlike Paris, Lyon, Nice and Lille, it is small."), Vec::<Vec<String>>::new());
        assert!(co_listed(&[BANKS], "The US Federal Reserve", "The Bank of England"));
        assert!(!co_listed(&[BANKS], "The US Federal Reserve", "All three banks"));
    }

    #[test]
    fn members_end_the_first_piece_fill_a_middle_one_or_start_the_last() {
        let l = &lists(ZH)[0];
        assert_eq!(l.member("百济神州"), Some(0));
        assert_eq!(l.member(" 泽璟制药。"), Some(1));
        assert_eq!(l.member("迈威生物"), Some(2));
        assert_eq!(l.member("国产药企"), None);
        assert_eq!(l.member("州"), None, "one character is too short to tell");
        let l = &lists(EN)[0];
        assert_eq!(l.member("Ownership"), Some(0));
        assert_eq!(l.member("the borrowing"), Some(1));
        assert_eq!(l.member("Lifetimes"), Some(2));
        assert_eq!(l.member("ship"), None, "inside a word");
    }

    #[test]
    fn options_listed_together_are_both_right() {
        assert!(co_listed(&[ZH], "百济神州", "迈威生物"));
        assert!(co_listed(&["x", ZH], "中国一重", "上海电气"));
        assert!(!co_listed(&[ZH], "百济神州", "恒瑞医药"), "not in the source");
        assert!(!co_listed(&[ZH], "百济神州", "上海电气"), "two lists");
        assert!(!co_listed(&[ZH], "百济神州", "百济神州"), "one member");
        assert!(co_listed(&[EN], "borrowing", "ownership"));
        assert!(!co_listed(&[EN], "1455", "Gutenberg printed the Bible"));
    }

    #[test]
    fn a_reference_naming_one_member_where_the_judge_names_more_is_caught() {
        assert_eq!(unnamed_member(&[ZH], "上海电气", "上海电气、中国一重和东方电气"), Some("中国一重".to_string()));
        assert_eq!(unnamed_member(&[ZH], "上海电气", "上海电气"), None);
        // The reference names them all, one inside a longer item.
        assert_eq!(
            unnamed_member(&[ZH], "上海电气、中国一重和东方电气涉及压力容器", "上海电气、中国一重和东方电气"),
            None
        );
        // The reference names no member: nothing to compare.
        assert_eq!(unnamed_member(&[ZH], "40%", "上海电气和中国一重"), None);
        assert_eq!(unnamed_member(&[EN], "Ownership", "ownership and borrowing"), Some("borrowing".to_string()));
        assert_eq!(unnamed_member(&[EN], "Ownership, borrowing and lifetimes", "ownership and lifetimes"), None);
    }
}
