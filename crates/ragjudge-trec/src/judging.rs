//! Batched judge calls with parse-and-retry: every item is asked once through
//! [`Judge::generate_many`]; items whose output cannot be parsed are asked again with another seed
//! (so the call cache key differs), and after the last retry are kept as [`Invalid`] with their raw
//! output, never turned into a default score.

use crate::error::ParseError;
use ragjudge_models::{GenParams, Judge, Prompt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How judge calls are made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallOptions {
    /// Extra attempts after an unparseable output (each with seed `seed + attempt`). Default 2.
    pub retries: u32,
    /// Attach the JSON schema of the expected output (`GenParams::json_schema`); backends that
    /// support structured output enforce it, others ignore it. Default true.
    pub structured: bool,
    /// Seed of the first attempt; Open RAG Eval passes 42. Default 42.
    pub seed: u64,
}

impl Default for CallOptions {
    fn default() -> Self {
        Self { retries: 2, structured: true, seed: 42 }
    }
}

/// A judge output that could not be used after every attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invalid {
    /// Pipeline step: `umbrela`, `nugget_creation`, `nugget_importance`, `nugget_assignment`, `citation`.
    pub step: String,
    /// Which item of the step, e.g. `passage 3`, `round 2`, `batch 1`, `part 2 [1]`.
    pub item: String,
    /// Attempts made.
    pub attempts: u32,
    /// Raw output of the last attempt (empty when the call itself failed).
    pub raw: String,
    /// Why it was rejected (parse error or model error).
    pub error: String,
}

/// One request: the prompt, its token budget and the schema of the expected output.
#[derive(Debug, Clone)]
pub struct Request {
    /// The prompt.
    pub prompt: Prompt,
    /// Most tokens to generate.
    pub max_tokens: u32,
    /// JSON schema of the answer (sent only when [`CallOptions::structured`]).
    pub schema: Value,
}

/// The outcome of one request: a parsed value, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    /// The parsed value, if an attempt produced one.
    pub value: Option<T>,
    /// Raw text of the attempt that was kept (the successful one, or the last).
    pub raw: String,
    /// Attempts made.
    pub attempts: u32,
    /// The last error when `value` is `None`.
    pub error: Option<String>,
}

impl<T> Answer<T> {
    /// The [`Invalid`] entry for a failed answer of `step`/`item`; `None` when it has a value.
    pub fn invalid(&self, step: &str, item: impl Into<String>) -> Option<Invalid> {
        if self.value.is_some() {
            return None;
        }
        Some(Invalid {
            step: step.to_string(),
            item: item.into(),
            attempts: self.attempts,
            raw: self.raw.clone(),
            error: self.error.clone().unwrap_or_default(),
        })
    }
}

/// Asks every request, parsing each output with `parse(index, text)`, and retries the failures.
pub fn ask_all<T>(
    judge: &dyn Judge,
    requests: &[Request],
    opts: &CallOptions,
    parse: impl Fn(usize, &str) -> Result<T, ParseError>,
) -> Vec<Answer<T>> {
    let mut answers: Vec<Answer<T>> =
        requests.iter().map(|_| Answer { value: None, raw: String::new(), attempts: 0, error: None }).collect();
    let mut pending: Vec<usize> = (0..requests.len()).collect();
    for attempt in 0..=opts.retries {
        if pending.is_empty() {
            break;
        }
        let batch: Vec<(Prompt, GenParams)> = pending
            .iter()
            .map(|&i| {
                let r = &requests[i];
                let params = GenParams {
                    max_tokens: r.max_tokens,
                    temperature: 0.0,
                    top_p: 1.0,
                    seed: opts.seed.wrapping_add(u64::from(attempt)),
                    stop: Vec::new(),
                    json_schema: opts.structured.then(|| r.schema.clone()),
                    grammar: None,
                };
                (r.prompt.clone(), params)
            })
            .collect();
        let results = judge.generate_many(&batch);
        let mut still = Vec::new();
        for (&i, result) in pending.iter().zip(results) {
            let a = &mut answers[i];
            a.attempts = attempt + 1;
            match result {
                Ok(g) => match parse(i, &g.text) {
                    Ok(v) => {
                        a.value = Some(v);
                        a.error = None;
                        a.raw = g.text;
                    }
                    Err(e) => {
                        a.error = Some(e.to_string());
                        a.raw = g.text;
                        still.push(i);
                    }
                },
                Err(e) => {
                    a.error = Some(format!("model error: {e}"));
                    a.raw = String::new();
                    still.push(i);
                }
            }
        }
        pending = still;
    }
    answers
}

#[cfg(test)]
pub(crate) mod fake {
    //! A judge that answers from a function of the last user message and records every call.

    use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, Prompt, Usage};
    use std::sync::Mutex;

    type Answerer = Box<dyn Fn(&str, u64) -> String + Send + Sync>;

    /// Answers `f(user message, seed)`.
    pub struct FakeJudge {
        f: Answerer,
        /// (user message, seed) of every call.
        pub calls: Mutex<Vec<(String, u64)>>,
    }

    impl FakeJudge {
        pub fn new(f: impl Fn(&str, u64) -> String + Send + Sync + 'static) -> Self {
            Self { f: Box::new(f), calls: Mutex::new(Vec::new()) }
        }

        pub fn count(&self) -> usize {
            self.calls.lock().unwrap().len()
        }
    }

    impl Judge for FakeJudge {
        fn identity(&self) -> String {
            "fake".into()
        }
        fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
            let user = prompt.messages.last().map(|m| m.content.clone()).unwrap_or_default();
            self.calls.lock().unwrap().push((user.clone(), params.seed));
            Ok(Generation { text: (self.f)(&user, params.seed), ..Generation::default() })
        }
        fn label_probs(&self, _: &Prompt, _: &[String]) -> Result<LabelProbs, ModelError> {
            unimplemented!("not used by the trec metrics")
        }
        fn usage(&self) -> Usage {
            Usage::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeJudge;
    use super::*;
    use serde_json::json;

    fn req(text: &str) -> Request {
        Request { prompt: Prompt::chat("", text), max_tokens: 8, schema: json!({}) }
    }

    #[test]
    fn retries_use_new_seeds_and_keep_the_raw_output_of_failures() {
        // `good` parses at once; `late` only on the second seed (43); `bad` never.
        let judge = FakeJudge::new(|u, seed| match (u, seed) {
            ("good", _) => "1".into(),
            ("late", 43) => "2".into(),
            _ => "garbage".into(),
        });
        let reqs = [req("good"), req("late"), req("bad")];
        let opts = CallOptions { retries: 2, ..CallOptions::default() };
        let out = ask_all(&judge, &reqs, &opts, |_, t| t.parse::<u8>().map_err(|e| ParseError::Other(e.to_string())));
        assert_eq!(out[0].value, Some(1));
        assert_eq!(out[0].attempts, 1);
        assert_eq!(out[1].value, Some(2));
        assert_eq!(out[1].attempts, 2);
        assert_eq!(out[2].value, None);
        assert_eq!(out[2].attempts, 3);
        assert_eq!(out[2].raw, "garbage");
        let inv = out[2].invalid("umbrela", "passage 3").unwrap();
        assert_eq!(inv.attempts, 3);
        assert!(out[0].invalid("umbrela", "passage 1").is_none());
        // 3 first attempts, 2 retries (late, bad), 1 more (bad): seeds 42, 43, 44.
        let calls = judge.calls.lock().unwrap().clone();
        assert_eq!(calls.len(), 6);
        let bad_seeds: Vec<u64> = calls.iter().filter(|(u, _)| u == "bad").map(|c| c.1).collect();
        assert_eq!(bad_seeds, vec![42, 43, 44]);
    }
}
