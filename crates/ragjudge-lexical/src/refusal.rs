//! Refusals: whether a sentence or an answer declines to answer ("the context does not mention
//! ...", "无法回答"), the lexical rule of no-answer detection (Open RAG Eval, "No-Answer
//! Detection", without a judge) shared by the TREC no-answer metric, the `claims` protocol and
//! the context-variation probes.

use ragjudge_core::text::split_sentences;

/// English refusal phrases, matched as lower-case substrings (`’` read as `'`).
pub const NO_ANSWER_PHRASES_EN: &[&str] = &[
    "i don't know",
    "i do not know",
    "not enough information",
    "isn't enough information",
    "don't have enough information",
    "do not have enough information",
    "insufficient information",
    "not enough context",
    "no relevant information",
    "there is no information",
    "no information about",
    "no information on",
    "no result found",
    "no results found",
    "no answer found",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "not able to answer",
    "cannot be answered",
    "can't be answered",
    "cannot provide an answer",
    "unable to provide an answer",
    "cannot be determined",
    "cannot determine",
    "unable to determine",
    "i couldn't find",
    "i could not find",
    "i was unable to find",
    "i am unable to find",
    "i'm unable to find",
    "is not mentioned in",
    "are not mentioned in",
    "is not provided in",
];

/// Sources an English refusal points at; with [`NO_ANSWER_NEGATIONS_EN`] and
/// [`NO_ANSWER_VERBS_EN`] they form phrases such as "the context does not mention".
pub const NO_ANSWER_SOURCES_EN: &[&str] = &[
    "context",
    "corpus",
    "passage",
    "passages",
    "document",
    "documents",
    "sources",
    "search results",
    "provided information",
    "provided text",
];

/// Negations of the "SOURCE NEGATION VERB" phrase family.
pub const NO_ANSWER_NEGATIONS_EN: &[&str] = &["does not", "do not", "doesn't", "don't"];

/// Verbs of the "SOURCE NEGATION VERB" phrase family.
pub const NO_ANSWER_VERBS_EN: &[&str] =
    &["contain", "provide", "mention", "include", "specify", "say", "state", "answer", "discuss", "address", "name"];

/// Chinese refusal phrases, matched as substrings.
pub const NO_ANSWER_PHRASES_ZH: &[&str] = &[
    "无法回答",
    "不能回答",
    "无法确定",
    "无法判断",
    "不知道",
    "我不清楚",
    "没有足够的信息",
    "信息不足",
    "没有相关信息",
    "没有提供相关",
    "未找到",
    "没有找到",
    "找不到",
    "未提及",
    "没有提及",
    "未提到",
    "没有提到",
    "并未提及",
    "无法提供",
    "无从得知",
    "无法得知",
    "没有答案",
];

/// A sentence containing one of these after its refusal phrase still attempts an answer
/// ("I don't know the exact date, but it was around 1850").
pub const CONTRAST_MARKERS: &[&str] =
    &[" but ", " however", "however,", " although ", " though ", "但", "不过", "然而"];

/// The refusal phrase found in `sentence` (lower-cased, `’` read as `'`), if any and if no
/// contrast marker follows it.
pub fn refusal_phrase(sentence: &str) -> Option<String> {
    let s = sentence.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    let mut found: Option<(usize, String)> = None;
    let mut consider = |phrase: &str| {
        if let Some(at) = s.find(phrase) {
            if found.as_ref().is_none_or(|(b, _)| at < *b) {
                found = Some((at, phrase.to_string()));
            }
        }
    };
    NO_ANSWER_PHRASES_EN.iter().chain(NO_ANSWER_PHRASES_ZH).for_each(|p| consider(p));
    for src in NO_ANSWER_SOURCES_EN {
        for neg in NO_ANSWER_NEGATIONS_EN {
            for verb in NO_ANSWER_VERBS_EN {
                consider(&format!("{src} {neg} {verb}"));
            }
        }
    }
    let (at, phrase) = found?;
    let after = &s[at + phrase.len()..];
    if CONTRAST_MARKERS.iter().any(|m| after.contains(m)) {
        return None;
    }
    Some(phrase)
}

/// The lexical no-answer rule: an answer is a non-answer when it is empty, or when more than half
/// of its sentences (`split_sentences`) are refusals ([`refusal_phrase`]). Returns the reason
/// (`"empty answer"` or the first refusal phrase) for a non-answer, `None` for an attempt.
pub fn lexical_no_answer(answer: &str) -> Option<String> {
    let sentences = split_sentences(answer);
    if sentences.is_empty() {
        return Some("empty answer".to_string());
    }
    let refusals: Vec<String> = sentences.iter().filter_map(|s| refusal_phrase(s)).collect();
    (2 * refusals.len() > sentences.len()).then(|| refusals[0].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_non_answers() {
        for a in [
            "No result found",
            "Not enough information to answer the question. I don't know.",
            "I’m sorry, I don’t know.",
            "The provided context does not mention the population of Lyon.",
            "Based on the passages, this cannot be determined.",
            "I don't have enough information to answer that.",
            "The corpus does not contain this information.",
            "The documents don't name a flight director.",
            "There isn't enough information in the provided context to answer that.",
            "",
            "   ",
        ] {
            assert!(lexical_no_answer(a).is_some(), "{a:?} should be a non-answer");
        }
        assert_eq!(lexical_no_answer("The context doesn't say.").as_deref(), Some("context doesn't say"));
    }

    #[test]
    fn english_answers() {
        for a in [
            "The capital of France is Beijing.",
            "Yes, the sky is blue.",
            "I don't know the exact date, but it was around 1850.",
            // One refusal sentence out of three is not more than half.
            "The context does not mention 2021. In 2020 sales were $3M. They grew 5% a year.",
            "Water does not contain carbon.",
        ] {
            assert_eq!(lexical_no_answer(a), None, "{a:?} should be an attempt");
        }
    }

    #[test]
    fn chinese_non_answers_and_answers() {
        for a in ["抱歉，我无法回答这个问题。", "资料中未提及该公司的成立时间。", "信息不足，无法确定。"]
        {
            assert!(lexical_no_answer(a).is_some(), "{a:?} should be a non-answer");
        }
        for a in ["北京是中国的首都。", "我不知道确切日期，但大约是1850年。", "该公司成立于1998年。总部位于上海。"]
        {
            assert_eq!(lexical_no_answer(a), None, "{a:?} should be an attempt");
        }
    }
}
