//! PII findings (HCAT §4, "Privacy protection"): what was found, where, by which
//! detector, and how far it was validated.
//!
//! Transparent detectors ([`detectors`]) match shapes with regular expressions and then validate
//! them (checksums, number ranges, parsing); an NER model ([`ner`]) adds entities no pattern
//! finds (names, addresses). [`merge::dedupe`] keeps one finding per overlapping span.

pub mod detectors;
pub mod mask;
pub mod merge;
pub mod ner;

use serde::Serialize;

/// The kind of personal information a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PiiType {
    /// An e-mail address.
    Email,
    /// A telephone number.
    Phone,
    /// A payment card number (PAN).
    PaymentCard,
    /// An international bank account number.
    Iban,
    /// A bank account or routing number other than an IBAN (NER only).
    BankAccount,
    /// A national identity, tax, passport or licence number.
    NationalId,
    /// An IPv4 or IPv6 address.
    IpAddress,
    /// A person's name (NER only).
    Person,
    /// A postal address or part of one (NER only).
    Address,
    /// An NER entity whose label has no mapping (kept, counted under `pii_count`).
    Other,
}

impl PiiType {
    /// Every type, in column order.
    pub const ALL: [PiiType; 10] = [
        PiiType::Email,
        PiiType::Phone,
        PiiType::PaymentCard,
        PiiType::Iban,
        PiiType::BankAccount,
        PiiType::NationalId,
        PiiType::IpAddress,
        PiiType::Person,
        PiiType::Address,
        PiiType::Other,
    ];

    /// Snake-case name, as in column names and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            PiiType::Email => "email",
            PiiType::Phone => "phone",
            PiiType::PaymentCard => "payment_card",
            PiiType::Iban => "iban",
            PiiType::BankAccount => "bank_account",
            PiiType::NationalId => "national_id",
            PiiType::IpAddress => "ip_address",
            PiiType::Person => "person",
            PiiType::Address => "address",
            PiiType::Other => "other",
        }
    }

    /// Whether a regex detector can find this type (the others come only from NER).
    pub fn has_pattern_detector(self) -> bool {
        !matches!(self, PiiType::BankAccount | PiiType::Person | PiiType::Address | PiiType::Other)
    }
}

/// How far a shape match was confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    /// The shape matched and its check passed (Luhn, mod-97, number ranges, a parser).
    Valid,
    /// No check exists for this kind (e-mail shape, NER entity): counted as a finding.
    Unchecked,
    /// The shape matched but its check failed: reported, not counted as PII.
    Invalid,
}

/// One piece of PII found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// What kind of PII.
    pub pii_type: PiiType,
    /// Byte offset of the first byte in the scanned text.
    pub start: usize,
    /// Byte offset just past the end.
    pub end: usize,
    /// The matched text, unmasked (see [`mask::mask`] for output).
    pub text: String,
    /// Which detector found it, e.g. `luhn`, `us_ssn`, `ner:B-EMAIL`.
    pub detector: String,
    /// How far the match was validated.
    pub validation: Validation,
    /// Model confidence (mean token probability) of NER findings.
    pub score: Option<f32>,
    /// Other detectors whose overlapping findings of the same type were merged into this one.
    pub confirmed_by: Vec<String>,
}

impl Finding {
    /// A pattern finding over `text[start..end]`.
    pub fn new(
        text: &str,
        start: usize,
        end: usize,
        pii_type: PiiType,
        detector: &str,
        validation: Validation,
    ) -> Self {
        Self {
            pii_type,
            start,
            end,
            text: text[start..end].to_string(),
            detector: detector.to_string(),
            validation,
            score: None,
            confirmed_by: Vec::new(),
        }
    }

    /// Whether the finding counts as PII (valid or without a check).
    pub fn counts(&self) -> bool {
        self.validation != Validation::Invalid
    }

    /// A JSON view for per-record detail, with the matched text masked.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "type": self.pii_type,
            "start": self.start,
            "end": self.end,
            "text": mask::mask(&self.text),
            "detector": self.detector,
            "validation": self.validation,
        });
        if let Some(s) = self.score {
            v["score"] = serde_json::json!(s);
        }
        if !self.confirmed_by.is_empty() {
            v["confirmed_by"] = serde_json::json!(self.confirmed_by);
        }
        v
    }
}
