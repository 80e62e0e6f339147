//! The DICE judge prompts (DICE §3.1; judge rules in docs/papers.md), versioned and
//! embedded from `prompts/{en,zh}-v2.txt` (earlier versions are in the repository's history).
//!
//! Layout, chosen so that the judgements of one question share a long prompt prefix (and a
//! backend's prefix cache): the system message holds the rules; the user message starts with the
//! question, then the reference answer (or, reference-free, a statement that there is none), then
//! answer A with its numbered evidence, answer B with its evidence, and last the instruction.
//!
//! Verdict labels are `A`, `B` and `C` (tie): single tokens in every tokenizer we use, where
//! `Tie` is often two. The stage II assistant prefix ends with `"Verdict (A, B or C for a tie):"`
//! and no trailing space; judges score each label in its bare and space-led forms (`A`, ` A`).
//! Version 1 ended the prefix with a space: BPE tokenizers fold a space into the next word, so
//! Qwen2.5-1.5B put a median 0.2% of its next-token mass on the labels and nearly every
//! verdict came out a tie.

use std::sync::OnceLock;

use ragjudge_core::text::{detect_lang, Lang};
use ragjudge_core::Record;
use ragjudge_models::{Message, Prompt};

/// Version of the English prompt; recorded in every trace.
pub const PROMPT_VERSION_EN: &str = "dice-en-v2";
/// Version of the Chinese prompt; recorded in every trace.
pub const PROMPT_VERSION_ZH: &str = "dice-zh-v2";

/// The verdict labels scored in stage II: A wins, B wins, C = tie.
pub const VERDICT_LABELS: [&str; 3] = ["A", "B", "C"];

/// Stop strings for stage I: the reasoning ends before the model writes a verdict itself.
pub const STAGE1_STOP: [&str; 2] = ["\nVerdict", "\n裁决"];

const EN_V2: &str = include_str!("../prompts/en-v2.txt");
const ZH_V2: &str = include_str!("../prompts/zh-v2.txt");

/// One language's prompt text, split into its `@@` sections.
#[derive(Debug, Clone)]
pub struct PromptTemplate {
    /// Version string, e.g. `dice-en-v2`.
    pub version: &'static str,
    /// System message: the judge rules and categories.
    pub system: String,
    /// `{query}`.
    pub question: String,
    /// `{reference}`.
    pub reference: String,
    /// Reference-free statement.
    pub no_reference: String,
    /// `{label}`, `{answer}`, `{evidence}`.
    pub answer: String,
    /// `{n}`, `{text}`.
    pub evidence_item: String,
    /// Stands in for an empty evidence list.
    pub no_evidence: String,
    /// Stage I instruction (analysis, then `Category A:` / `Category B:` lines).
    pub instruction: String,
    /// Instruction when there is no reasoning stage.
    pub instruction_direct: String,
    /// Verdict line, without its trailing space.
    pub verdict: String,
}

/// The sections of a prompt file: a section starts at a line `@@ NAME` and runs to the next one;
/// lines before the first are comments. Bodies lose trailing whitespace.
pub fn sections(text: &str) -> Vec<(String, String)> {
    let mut sections: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("@@ ") {
            sections.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    for (_, body) in &mut sections {
        body.truncate(body.trim_end().len());
    }
    sections
}

/// The section `name` of a parsed prompt file; a missing section is a defect of the embedded
/// file, caught by the tests.
pub fn section(sections: &[(String, String)], version: &str, name: &str) -> String {
    sections
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, b)| b.clone())
        .unwrap_or_else(|| panic!("prompt {version} lacks section `{name}`"))
}

fn parse_template(version: &'static str, text: &str) -> PromptTemplate {
    let sections = sections(text);
    let get = |name: &str| section(&sections, version, name);
    PromptTemplate {
        version,
        system: get("system"),
        question: get("question"),
        reference: get("reference"),
        no_reference: get("no_reference"),
        answer: get("answer"),
        evidence_item: get("evidence_item"),
        no_evidence: get("no_evidence"),
        instruction: get("instruction"),
        instruction_direct: get("instruction_direct"),
        verdict: get("verdict"),
    }
}

/// The prompt template of `lang`.
pub fn template(lang: Lang) -> &'static PromptTemplate {
    static EN: OnceLock<PromptTemplate> = OnceLock::new();
    static ZH: OnceLock<PromptTemplate> = OnceLock::new();
    match lang {
        Lang::En => EN.get_or_init(|| parse_template(PROMPT_VERSION_EN, EN_V2)),
        Lang::Zh => ZH.get_or_init(|| parse_template(PROMPT_VERSION_ZH, ZH_V2)),
    }
}

/// Prompt version of `lang`.
pub fn prompt_version(lang: Lang) -> &'static str {
    template(lang).version
}

/// `"en"` or `"zh"`, as written in traces.
pub fn lang_code(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh",
    }
}

/// The explicit language if given, else the question's language ([`detect_lang`]).
pub fn choose_lang(explicit: Option<Lang>, query: &str) -> Lang {
    explicit.unwrap_or_else(|| detect_lang(query))
}

/// The verdict labels as owned strings, for `Judge::label_probs`.
pub fn verdict_labels() -> Vec<String> {
    VERDICT_LABELS.iter().map(|s| s.to_string()).collect()
}

/// The stage II assistant prefix after `reasoning` (trimmed), or the bare verdict line when
/// there is no reasoning. Ends with the verdict line's `":"`, no space after it.
pub fn verdict_prefix(lang: Lang, reasoning: Option<&str>) -> String {
    let verdict = &template(lang).verdict;
    match reasoning {
        Some(r) => format!("{}\n{}", r.trim(), verdict),
        None => verdict.clone(),
    }
}

/// Replaces `{key}` placeholders of `template` in one pass, so that braces inside the inserted
/// values (answers, passages) are never expanded.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        match values.iter().find(|(k, _)| tail.starts_with(k) && tail[k.len()..].starts_with('}')) {
            Some((k, v)) => {
                out.push_str(v);
                rest = &tail[k.len() + 1..];
            }
            None => {
                out.push('{');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

fn answer_block(t: &PromptTemplate, label: &str, rec: &Record) -> String {
    let evidence = if rec.contexts.is_empty() {
        t.no_evidence.clone()
    } else {
        rec.contexts
            .iter()
            .enumerate()
            .map(|(i, c)| fill(&t.evidence_item, &[("n", &(i + 1).to_string()), ("text", c.text.trim())]))
            .collect::<Vec<_>>()
            .join("\n")
    };
    fill(&t.answer, &[("label", label), ("answer", rec.answer.trim()), ("evidence", &evidence)])
}

/// The shared head of the user message: question, then reference (or the reference-free
/// statement). Every pair of one question starts its user message with this text.
pub fn question_block(lang: Lang, query: &str, reference: Option<&str>) -> String {
    let t = template(lang);
    let question = fill(&t.question, &[("query", query.trim())]);
    let reference = match reference {
        Some(r) => fill(&t.reference, &[("reference", r.trim())]),
        None => t.no_reference.clone(),
    };
    format!("{question}\n\n{reference}")
}

/// The stage I prompt: `first` is shown as answer A, `second` as answer B. With
/// `reasoning == false` the instruction asks for the verdict directly.
pub fn judge_prompt(
    lang: Lang,
    query: &str,
    reference: Option<&str>,
    first: &Record,
    second: &Record,
    reasoning: bool,
) -> Prompt {
    let t = template(lang);
    let instruction = if reasoning { &t.instruction } else { &t.instruction_direct };
    let user = format!(
        "{}\n\n{}\n\n{}\n\n{}",
        question_block(lang, query, reference),
        answer_block(t, "A", first),
        answer_block(t, "B", second),
        instruction
    );
    Prompt {
        messages: vec![Message::new("system", t.system.clone()), Message::new("user", user)],
        assistant_prefix: None,
    }
}

/// The stage II prompt: the stage I messages with the verdict prefix as the assistant turn.
pub fn verdict_prompt(stage1: &Prompt, lang: Lang, reasoning: Option<&str>) -> Prompt {
    Prompt { messages: stage1.messages.clone(), assistant_prefix: Some(verdict_prefix(lang, reasoning)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_and_verdict_line_ends_with_colon() {
        for lang in [Lang::En, Lang::Zh] {
            let t = template(lang);
            assert!(t.verdict.ends_with(':'), "{}", t.verdict);
            assert!(t.answer.contains("{answer}") && t.answer.contains("{evidence}"));
            assert!(t.question.contains("{query}") && t.reference.contains("{reference}"));
            assert!(!t.system.contains("@@"));
        }
        assert_eq!(prompt_version(Lang::En), "dice-en-v2");
        assert_eq!(prompt_version(Lang::Zh), "dice-zh-v2");
        assert!(EN_V2.contains(PROMPT_VERSION_EN) && ZH_V2.contains(PROMPT_VERSION_ZH));
    }

    #[test]
    fn verdict_prefix_ends_at_the_colon() {
        assert_eq!(verdict_prefix(Lang::En, None), "Verdict (A, B or C for a tie):");
        assert_eq!(verdict_prefix(Lang::En, Some("  why\n\n")), "why\nVerdict (A, B or C for a tie):");
    }

    #[test]
    fn braces_in_answers_are_kept_verbatim() {
        let a = Record {
            answer: "uses {evidence} and {label}".into(),
            contexts: vec![ragjudge_core::Context { text: "ctx {answer}".into(), ..Default::default() }],
            ..Default::default()
        };
        let b = Record { answer: "b".into(), ..Default::default() };
        let p = judge_prompt(Lang::En, "q", None, &a, &b, true);
        assert!(p.messages[1].content.contains("uses {evidence} and {label}"));
        assert!(p.messages[1].content.contains("[1] ctx {answer}"));
    }
}
