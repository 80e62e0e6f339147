//! The judge prompts of Open RAG Eval 0.3.0 (`pip download open-rag-eval==0.3.0`), verbatim, with
//! their `{name}` placeholders, and the JSON schemas of its structured outputs (its pydantic
//! response models).

use serde_json::{json, Value};

/// The system message Open RAG Eval's OpenAI judge sends with every prompt.
pub const SYSTEM: &str =
    "You are a helpful assistant that follows user instructions precisely and provides accurate information.";

/// UMBRELA's grading prompt (Open RAG Eval `UMBRELAMetric._UMBRELA_PROMPT`): intent, content match M,
/// trustworthiness T, final score O on 0-3 (Open RAG Eval, "UMBRELA").
pub const UMBRELA: &str = r#"
        Given a query and a passage, you must provide a score on an
        integer scale of 0 to 3 with the following meanings:
        0 = represent that the passage has nothing to do with the query,
        1 = represents that the passage seems related to the query but
        does not answer it,
        2 = represents that the passage has some answer for the query,
        but the answer may be a bit unclear, or hidden amongst extraneous
        information and
        3 = represents that the passage is dedicated to the query and
        contains the exact answer.
        Important Instruction: Assign category 1 if the passage is
        somewhat related to the topic but not completely, category 2 if
        passage presents something very important related to the entire
        topic but also has some extra information and category 3 if the
        passage only and entirely refers to the topic. If none of the
        above satisfies give it category 0.
        Query: {query}
        Passage: {passage}
        Split this problem into steps:
        Consider the underlying intent of the search.
        Measure how well the content matches a likely intent of the query
        (M).
        Measure how trustworthy the passage is (T).
        Consider the aspects above and the relative importance of each,
        and decide on a final score (O). Final score must be an integer
        value only.
        Do not provide any code in result. Provide each score in the
        format of: a single integer without any reasoning.
    "#;

/// The clearer UMBRELA prompt Open RAG Eval sends to GPT-OSS and Qwen models (`_UMBRELA_NEW_PROMPT`).
pub const UMBRELA_NEW: &str = r#"
        Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the following meanings:
        0 = represent that the passage has nothing to do with the query,
        1 = represents that the passage seems related to the query but does not answer it,
        2 = represents that the passage has some answer for the query,
        but the answer may be a bit unclear, or hidden amongst extraneous information and
        3 = represents that the passage is dedicated to the query and contains the exact answer.
        Important Instructions about score assignment:
        - score=1 if the passage is somewhat related to the topic but not completely.
        - score=2 if the passage presents something very important related to the entire topic but also has some extra information.
        - score=3 if the passage only and entirely refers to the topic.
        - score=0 if none of the above is satisfied.
        Split this problem into steps:
        1. Consider the underlying intent of the search.
        2. Measure how well the content matches a likely intent of the query (M).
        3. Measure how trustworthy the passage is (T).
        4. Consider the aspects above and the relative importance of each, and decide on a final score (O).
        Your response must be the final score value (0, 1, 2 or 3) only, without any additional text.
        <query>
        {query}
        </query>
        <passage>
        {passage}
        </passage>
    "#;

/// AutoNuggetizer nugget creation, one round of the iterative update (`_NUGGET_CREATION_PROMPT`).
pub const NUGGET_CREATION: &str = r#"
        You are NuggetizeLLM, an intelligent assistant that can update a list of atomic nuggets to best provide all the information required for the query.
        Update the list of atomic nuggets of information (1-12 words), if needed, so they best provide the information required for the query. Leverage only
        the initial list of nuggets (if exists) and the provided context (this is an iterative process). Return only the final list of all nuggets in a Pythonic list format (even if no updates).
        Make sure there is no redundant information. Ensure the updated nugget list has at most {max_nuggets} nuggets (can be less), keeping only the most vital ones. Order them in decreasing order of importance.
        Prefer nuggets that provide more interesting information.

        Search Query: {query}

        Context:
        {context}

        Initial Nugget List: {initial_nuggets}
        Initial Nugget List Length: {initial_nuggets_length}

        Only update the list of atomic nuggets (if needed, else return as is). Do not explain.
        Always answer in short nuggets (not questions). List in the form ["a", "b", ...] and a and b are strings with no mention of ".

        Do not rely on any other source of information like your past knowledge, things you might have learned before or experience to create the nuggets.
        Only use information from within the context. If the provided context does not contain any information relevant to the query, don't make up any nuggets on your own.
        In this case the only nugget you should produce is "Not enough information, no answer found". Do not add any nugget except "Not enough information, no answer found" in this case.

        Updated Nugget List:
        "#;

/// AutoNuggetizer importance labelling of up to 10 nuggets, vital or okay (`_NUGGET_IMPORTANCE_PROMPT`).
pub const NUGGET_IMPORTANCE: &str = r#"
        You are NuggetizeScoreLLM, an intelligent assistant that can label a list of atomic nuggets
        based on their importance for a given search query

        Based on the query, label each of the {len_nuggets} nuggets either as vital or okay based on the
        following criteria. Vital nuggets represent concepts that must be present in a “good” answer; on the other
        hand, okay nuggets contribute worthwhile information about the target but are not essential. Return the
        list of labels in a Pythonic list format (type: List[str]). The list should be in the same order as the input
        nuggets. Make sure to provide a label for each nugget.
        Search Query: {query}
        Nugget List: {nuggets}
        Only return the list of labels (List[str]). Do not explain your answer.

        If the nuggets contain a "Not enough information, no answer found" nugget, label it as vital.
        Labels:
    "#;

/// AutoNuggetizer assignment of up to 10 nuggets to the answer (`_NUGGET_ASSIGNMENT_PROMPT`).
pub const NUGGET_ASSIGNMENT: &str = r#"
        You are NuggetizeAssignerLLM, an intelligent assistant that can label a list of atomic nuggets
        based on if they are captured by a given passage.

        Based on the query and passage, label each of the {len_nuggets} nuggets either as support, partial_support, or not_support using the following criteria.
        A nugget that is fully captured in the passage should be labeled as support. A nugget that is partially captured in the passage should be labeled as
        partial_support. If the nugget is not captured at all, label it as not_support. Return the list of labels in a
        Pythonic list format (type: List[str]). The list should be in the same order as the input nuggets. Make sure
        to provide a label for each nugget.
        Search Query: {query}

        Passage: {generated_passage}

        Nugget List: {nuggets}

        Only return the list of labels (List[str]). Do not explain your answer. If the nuggets contain a "Not enough information, no answer found" nugget, and the generates passage also indicates
        that there was no result found or not enough information to answer the query label it as support.

        Labels:
    "#;

/// Citation support of one (statement, cited passage) pair (`CitationMetric._CITATION_PROMPT`).
pub const CITATION: &str = r#"
        In this task, you will evaluate whether each statement is
        supported by its corresponding citations. Note that the system
        responses may appear very fluent and well-formed, but contain
        slight inaccuracies that are not easy to discern at first glance.
        Pay close attention to the text.

        You will be provided with a statement and its corresponding
        citation. It may be helpful to ask yourself whether it is
        accurate to say "according to the citation" with a
        statement following this phrase. Be sure to check all of the
        information in the statement. You will be given three options:

        - Full Support: All of the information in the statement is
        supported in the citation.

        - Partial Support: Some parts of the information are supported in
        the citation, but other parts are missing from the citation.

        - No Support: This citation does not support any part of the
        statement.

        Please provide your response based on the information in the
        citation. If you are unsure, use your best judgment. Respond as
        either ``full_support'', ``partial_support'', or ``no_support''
        with no additional information.

        Statement: {statement}

        Citation: {citation}
    "#;

/// Fills `{name}` placeholders of `template` in one pass, so that a value holding `{...}` text is
/// never expanded again. Unknown placeholders are left as they are.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hit = after.find('}').and_then(|close| {
            let name = &after[..close];
            values.iter().find(|(n, _)| *n == name).map(|(_, v)| (v, close))
        });
        match hit {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A named JSON schema in the form the OpenAI `response_format` takes.
fn named(name: &str, schema: Value) -> Value {
    json!({"name": name, "strict": true, "schema": schema})
}

/// An object with one required field.
fn one_field(field: &str, schema: Value) -> Value {
    json!({"type": "object", "properties": {field: schema}, "required": [field], "additionalProperties": false})
}

/// `UMBRELAScore`: `{"score": "0" | "1" | "2" | "3"}`.
pub fn umbrela_schema() -> Value {
    named("UMBRELAScore", one_field("score", json!({"type": "string", "enum": ["0", "1", "2", "3"]})))
}

/// `Nuggets`: `{"nuggets": [string]}`.
pub fn nuggets_schema() -> Value {
    named("Nuggets", one_field("nuggets", json!({"type": "array", "items": {"type": "string"}})))
}

/// `NuggetImportance`: `{"importance": ["vital" | "okay"]}`.
pub fn importance_schema() -> Value {
    let item = json!({"type": "string", "enum": ["vital", "okay"]});
    named("NuggetImportance", one_field("importance", json!({"type": "array", "items": item})))
}

/// `NuggetAssignment`: `{"assignment": ["support" | "partial_support" | "not_support"]}`.
pub fn assignment_schema() -> Value {
    let item = json!({"type": "string", "enum": ["support", "partial_support", "not_support"]});
    named("NuggetAssignment", one_field("assignment", json!({"type": "array", "items": item})))
}

/// `CitationSupport`: `{"support": "full_support" | "partial_support" | "no_support"}`.
pub fn citation_schema() -> Value {
    let item = json!({"type": "string", "enum": ["full_support", "partial_support", "no_support"]});
    named("CitationSupport", one_field("support", item))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_expands_each_placeholder_once() {
        let p = fill("Q: {query} P: {passage} {unknown}", &[("query", "{passage}"), ("passage", "text")]);
        assert_eq!(p, "Q: {passage} P: text {unknown}");
    }

    #[test]
    fn templates_name_their_placeholders() {
        for (t, names) in [
            (UMBRELA, &["query", "passage"][..]),
            (UMBRELA_NEW, &["query", "passage"][..]),
            (NUGGET_CREATION, &["max_nuggets", "query", "context", "initial_nuggets", "initial_nuggets_length"][..]),
            (NUGGET_IMPORTANCE, &["len_nuggets", "query", "nuggets"][..]),
            (NUGGET_ASSIGNMENT, &["len_nuggets", "query", "generated_passage", "nuggets"][..]),
            (CITATION, &["statement", "citation"][..]),
        ] {
            for n in names {
                assert!(t.contains(&format!("{{{n}}}")), "{n}");
            }
        }
    }
}
