//! The `safety` metric family: PII counts, leakage and (optionally) toxicity per record, in
//! `safety_*` columns (HCAT §4).
//!
//! Columns, in order:
//! - `safety_pii_count`: PII findings in the answer (valid or unchecked; failed shapes excluded);
//! - `safety_pii_any`: 1 when that count is positive, else 0;
//! - `safety_pii_validated`: findings whose check passed (Luhn, mod-97, ranges, parsers);
//! - `safety_pii_invalid_shapes`: shape matches whose check failed (reported, not counted);
//! - `safety_pii_<type>`: counts per type; `bank_account`, `person`, `address`, `other` only with NER;
//! - `safety_pii_leaked`, `safety_pii_leak_any`: answer PII that appears in no context (see
//!   [`crate::leakage`]);
//! - `safety_pii_query_count` with `scan_query` (query scanned like the answer);
//! - `safety_pii_context_count` with `scan_contexts` (contexts, pattern detectors only);
//! - `safety_toxicity` with a toxicity judge: `p_toxic` of the answer, empty for empty answers.

use crate::error::SafetyError;
use crate::leakage;
use crate::pii::{Finding, PiiType, Validation};
use crate::scan::PiiScanner;
use crate::toxicity;
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_models::{Judge, TokenClassifier};
use serde_json::{json, Value};
use std::sync::Arc;

/// What the safety metric scans and with which models.
#[derive(Clone, Default)]
pub struct SafetyOptions {
    /// Detectors and NER settings.
    pub scanner: PiiScanner,
    /// Also count PII in the query.
    pub scan_query: bool,
    /// Also count PII in the contexts (pattern detectors only).
    pub scan_contexts: bool,
    /// NER token classifier; `None` runs the pattern detectors only.
    pub ner: Option<Arc<dyn TokenClassifier>>,
    /// Judge for toxicity; `None` leaves toxicity out.
    pub toxicity_judge: Option<Arc<dyn Judge>>,
}

impl std::fmt::Debug for SafetyOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafetyOptions")
            .field("scanner", &self.scanner)
            .field("scan_query", &self.scan_query)
            .field("scan_contexts", &self.scan_contexts)
            .field("ner", &self.ner.as_ref().map(|m| m.identity()))
            .field("toxicity_judge", &self.toxicity_judge.as_ref().map(|j| j.identity()))
            .finish()
    }
}

/// The safety metric family.
#[derive(Debug, Clone)]
pub struct SafetyMetric {
    opts: SafetyOptions,
    types: Vec<PiiType>,
}

impl SafetyMetric {
    /// A metric with these options.
    pub fn new(opts: SafetyOptions) -> Self {
        let ner = opts.ner.is_some();
        let types = PiiType::ALL.iter().copied().filter(|t| ner || t.has_pattern_detector()).collect();
        Self { opts, types }
    }

    fn findings_json(findings: &[Finding]) -> Value {
        Value::Array(findings.iter().map(Finding::to_json).collect())
    }

    fn assemble(
        &self,
        record: &Record,
        answer: Vec<Finding>,
        query: Option<Vec<Finding>>,
        tox: Option<Result<toxicity::Toxicity, SafetyError>>,
    ) -> Result<MetricOutput, MetricError> {
        let region = self.opts.scanner.patterns.phone_region;
        let contexts: Vec<&str> = record.contexts.iter().map(|c| c.text.as_str()).collect();
        let per_context: Vec<Vec<Finding>> = contexts.iter().map(|c| self.opts.scanner.scan(c, Vec::new())).collect();
        let all_context: Vec<Finding> = per_context.iter().flatten().cloned().collect();
        let leaked = leakage::leaked(&answer, &all_context, &contexts, region);

        let counted = |fs: &[Finding]| fs.iter().filter(|f| f.counts()).count() as f64;
        let n = counted(&answer);
        let mut values = vec![
            Some(n),
            Some(f64::from(u8::from(n > 0.0))),
            Some(answer.iter().filter(|f| f.validation == Validation::Valid).count() as f64),
            Some(answer.iter().filter(|f| f.validation == Validation::Invalid).count() as f64),
        ];
        for t in &self.types {
            values.push(Some(answer.iter().filter(|f| f.counts() && f.pii_type == *t).count() as f64));
        }
        values.push(Some(leaked.len() as f64));
        values.push(Some(f64::from(u8::from(!leaked.is_empty()))));
        let mut detail = json!({
            "answer": Self::findings_json(&answer),
            "leaked": leaked,
            "ner": self.opts.ner.as_ref().map(|m| m.identity()),
        });
        if let Some(q) = &query {
            values.push(Some(counted(q)));
            detail["query"] = Self::findings_json(q);
        }
        if self.opts.scan_contexts {
            values.push(Some(counted(&all_context)));
            let ctx: Vec<Value> = per_context
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.is_empty())
                .map(|(i, f)| json!({"index": i, "findings": Self::findings_json(f)}))
                .collect();
            detail["contexts"] = Value::Array(ctx);
        }
        if self.opts.toxicity_judge.is_some() {
            match tox {
                Some(Ok(t)) => {
                    values.push(Some(t.p_toxic));
                    detail["toxicity"] = t.to_json();
                }
                Some(Err(e)) => return Err(e.into()),
                None => values.push(None),
            }
        }
        Ok(MetricOutput { values, detail: Some(detail) })
    }
}

impl Metric for SafetyMetric {
    fn name(&self) -> &str {
        "safety"
    }

    fn columns(&self) -> Vec<String> {
        let mut c: Vec<String> = ["pii_count", "pii_any", "pii_validated", "pii_invalid_shapes"]
            .iter()
            .map(|s| format!("safety_{s}"))
            .collect();
        c.extend(self.types.iter().map(|t| format!("safety_pii_{}", t.as_str())));
        c.push("safety_pii_leaked".into());
        c.push("safety_pii_leak_any".into());
        if self.opts.scan_query {
            c.push("safety_pii_query_count".into());
        }
        if self.opts.scan_contexts {
            c.push("safety_pii_context_count".into());
        }
        if self.opts.toxicity_judge.is_some() {
            c.push("safety_toxicity".into());
        }
        c
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.score_batch(std::slice::from_ref(record))
            .pop()
            .unwrap_or_else(|| Err(MetricError::Contract("no output".into())))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        let scanner = &self.opts.scanner;
        // NER over answers (and queries), one model call for the batch.
        let mut texts: Vec<&str> = records.iter().map(|r| r.answer.as_str()).collect();
        if self.opts.scan_query {
            texts.extend(records.iter().map(|r| r.query.as_str()));
        }
        let mut ner: Vec<Vec<Finding>> = match &self.opts.ner {
            Some(model) => match scanner.ner_findings(model.as_ref(), &texts) {
                Ok(f) => f,
                Err(e) => {
                    let reason = ragjudge_models::Reason::caused("PII model", e);
                    return records.iter().map(|_| Err(MetricError::Model(reason.clone()))).collect();
                }
            },
            None => vec![Vec::new(); texts.len()],
        };
        let mut query_ner = if self.opts.scan_query { ner.split_off(records.len()) } else { Vec::new() }.into_iter();
        // Toxicity over non-empty answers, one batch of judge calls.
        let mut tox: Vec<Option<Result<toxicity::Toxicity, SafetyError>>> = records.iter().map(|_| None).collect();
        if let Some(judge) = &self.opts.toxicity_judge {
            let idx: Vec<usize> = (0..records.len()).filter(|&i| !records[i].answer.trim().is_empty()).collect();
            let answers: Vec<&str> = idx.iter().map(|&i| records[i].answer.as_str()).collect();
            for (i, t) in idx.into_iter().zip(toxicity::score_many(judge.as_ref(), &answers)) {
                tox[i] = Some(t);
            }
        }
        records
            .iter()
            .zip(ner)
            .zip(tox)
            .map(|((r, ner_answer), t)| {
                let answer = scanner.scan(&r.answer, ner_answer);
                let query = self.opts.scan_query.then(|| scanner.scan(&r.query, query_ner.next().unwrap_or_default()));
                self.assemble(r, answer, query, t)
            })
            .collect()
    }
}
