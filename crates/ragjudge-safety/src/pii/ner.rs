//! PII from a token-classification (NER) model (HCAT §4: "Privacy protection for
//! GLMs often involves Named Entity Recognition"): B-/I- token labels merged into entity spans,
//! entity labels mapped to [`PiiType`]s.
//!
//! Merging (as the "first" aggregation of Hugging Face token-classification pipelines): a
//! WordPiece continuation (`##...` glued to the previous token) belongs to the previous token's
//! entity whatever its own label; `B-X` opens an entity; `I-X` continues an open `X` entity and
//! otherwise opens one; `O` closes. A label without a prefix is read as `I-`. An entity's score is
//! the mean probability of its tokens; entities below the threshold are dropped.
//!
//! Label mapping (the label names of the model's config, prefix removed, case ignored):
//!
//! | labels | type |
//! |---|---|
//! | EMAIL, EMAIL_ADDRESS | email |
//! | PHONE, PHONE_NUMBER, TELEPHONE | phone |
//! | CREDIT_CARD, CREDIT_CARD_NUMBER, CARD_NUMBER | payment_card |
//! | IBAN, IBAN_CODE | iban |
//! | BANK_ACCOUNT, ACCOUNT_NUMBER, ROUTING_NUMBER | bank_account |
//! | TAX_ID, GOVERNMENT_ID, PASSPORT, DRIVERS_LICENSE, SSN, US_SSN, NATIONAL_ID, ID_NUMBER | national_id |
//! | IP, IP_ADDRESS | ip_address |
//! | GIVEN_NAME, SURNAME, FIRST_NAME, LAST_NAME, NAME, PERSON, PER | person |
//! | BUILDING_NUMBER, STREET_NAME, STREET, SECONDARY_ADDRESS, CITY, STATE, ZIP_CODE, ZIPCODE, POSTCODE, ADDRESS | address |
//! | URL, DATE, TIME, ORG, LOC, MISC | not PII by itself: ignored |
//! | anything else | other |
//!
//! Adjacent person (or address) entities separated only by spaces or commas become one finding,
//! so `Jane` + `Doe` is one name and `221B` + `Baker Street` + `London` one address.

use super::{Finding, PiiType, Validation};
use ragjudge_models::TokenPrediction;

/// The PII type of an entity label (prefix removed), `None` when it is not PII by itself.
pub fn label_type(entity: &str) -> Option<PiiType> {
    let l = entity.to_ascii_uppercase();
    let t = match l.as_str() {
        "EMAIL" | "EMAIL_ADDRESS" => PiiType::Email,
        "PHONE" | "PHONE_NUMBER" | "TELEPHONE" => PiiType::Phone,
        "CREDIT_CARD" | "CREDIT_CARD_NUMBER" | "CARD_NUMBER" => PiiType::PaymentCard,
        "IBAN" | "IBAN_CODE" => PiiType::Iban,
        "BANK_ACCOUNT" | "ACCOUNT_NUMBER" | "ROUTING_NUMBER" => PiiType::BankAccount,
        "TAX_ID" | "GOVERNMENT_ID" | "PASSPORT" | "DRIVERS_LICENSE" | "SSN" | "US_SSN" | "NATIONAL_ID"
        | "ID_NUMBER" => PiiType::NationalId,
        "IP" | "IP_ADDRESS" => PiiType::IpAddress,
        "GIVEN_NAME" | "SURNAME" | "FIRST_NAME" | "LAST_NAME" | "NAME" | "PERSON" | "PER" => PiiType::Person,
        "BUILDING_NUMBER" | "STREET_NAME" | "STREET" | "SECONDARY_ADDRESS" | "CITY" | "STATE" | "ZIP_CODE"
        | "ZIPCODE" | "POSTCODE" | "ADDRESS" => PiiType::Address,
        "URL" | "DATE" | "TIME" | "ORG" | "LOC" | "MISC" => return None,
        _ => PiiType::Other,
    };
    Some(t)
}

/// Splits a token label into its scheme prefix (`B`, `I`, or none) and entity name; `O` is `None`.
fn split_label(label: &str) -> Option<(char, &str)> {
    if label == "O" || label.is_empty() {
        return None;
    }
    match label.split_once('-') {
        Some((p @ ("B" | "I" | "E" | "S" | "L" | "U"), name)) => {
            // BIOES/BILOU: begin-like prefixes open, the others continue.
            let kind = if matches!(p, "B" | "S" | "U") { 'B' } else { 'I' };
            Some((kind, name))
        }
        _ => Some(('I', label)),
    }
}

/// One entity span merged from token predictions.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// Entity name without the B-/I- prefix, as the model spells it.
    pub label: String,
    /// Byte offset of the first token.
    pub start: usize,
    /// Byte offset past the last token.
    pub end: usize,
    /// Mean probability of the entity's tokens.
    pub score: f32,
}

/// Merges per-token predictions (in text order) into entity spans.
pub fn merge_tokens(preds: &[TokenPrediction]) -> Vec<Entity> {
    let mut out: Vec<Entity> = Vec::new();
    // Per entity: sum and count of its token scores.
    let mut sums: Vec<(f32, usize)> = Vec::new();
    let mut open = false;
    let mut prev_end: Option<usize> = None;
    for p in preds {
        let continuation = p.token.starts_with("##") && prev_end == Some(p.start);
        prev_end = Some(p.end);
        let extend = if continuation {
            open
        } else {
            match split_label(&p.label) {
                None => {
                    open = false;
                    continue;
                }
                Some((kind, name)) => {
                    let same = open && out.last().is_some_and(|e| e.label == name);
                    if !(kind == 'I' && same) {
                        out.push(Entity { label: name.to_string(), start: p.start, end: p.end, score: 0.0 });
                        sums.push((p.score, 1));
                        open = true;
                        continue;
                    }
                    true
                }
            }
        };
        if let (true, Some(e), Some(s)) = (extend, out.last_mut(), sums.last_mut()) {
            e.end = p.end;
            s.0 += p.score;
            s.1 += 1;
        }
    }
    for (e, (sum, n)) in out.iter_mut().zip(sums) {
        e.score = sum / n as f32;
    }
    out
}

/// NER findings in `text` from its token predictions: merged, thresholded (mean score >=
/// `threshold`), mapped to PII types, and joined when adjacent (person, address).
pub fn findings(text: &str, preds: &[TokenPrediction], threshold: f32) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for e in merge_tokens(preds) {
        if e.score < threshold || e.end > text.len() || e.start >= e.end {
            continue;
        }
        if !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            continue;
        }
        let Some(t) = label_type(&e.label) else { continue };
        if let Some(last) = out.last_mut() {
            let gap = text.get(last.end..e.start).unwrap_or("x");
            let joinable = matches!(t, PiiType::Person | PiiType::Address) && last.pii_type == t;
            if joinable && last.end <= e.start && gap.chars().all(|c| c.is_whitespace() || c == ',') {
                // Score of the joined finding: mean of the parts weighted by their byte length.
                let (la, lb) = ((last.end - last.start) as f32, (e.end - e.start) as f32);
                last.score = last.score.map(|s| (s * la + e.score * lb) / (la + lb));
                last.end = e.end;
                last.text = text[last.start..last.end].to_string();
                continue;
            }
        }
        let mut f = Finding::new(text, e.start, e.end, t, &format!("ner:{}", e.label), Validation::Unchecked);
        f.score = Some(e.score);
        out.push(f);
    }
    out
}

/// Splits `text` into windows of at most `max_bytes` bytes (a model sees a bounded number of
/// tokens), cutting after a sentence end where possible, else at whitespace, else at a character
/// boundary. Returns each window's byte offset and text.
pub fn chunks(text: &str, max_bytes: usize) -> Vec<(usize, &str)> {
    let max_bytes = max_bytes.max(16);
    let base = text.as_ptr() as usize;
    let sentence_ends: Vec<usize> =
        ragjudge_core::text::split_sentences(text).iter().map(|s| s.as_ptr() as usize - base + s.len()).collect();
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < text.len() {
        if text.len() - pos <= max_bytes {
            out.push((pos, &text[pos..]));
            break;
        }
        let limit = pos + max_bytes;
        let cut = sentence_ends
            .iter()
            .copied()
            .filter(|&e| e > pos && e <= limit)
            .max()
            .or_else(|| text[pos..limit].rfind(char::is_whitespace).map(|i| pos + i).filter(|&c| c > pos))
            .unwrap_or_else(|| (pos + 1..=limit).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(text.len()));
        out.push((pos, &text[pos..cut]));
        pos = cut;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_text_and_respect_limit() {
        let t = "One sentence here. Another one there. And a third, longer sentence to finish.";
        let c = chunks(t, 40);
        let joined: String = c.iter().map(|(_, s)| *s).collect();
        assert_eq!(joined, t);
        assert!(c.iter().all(|(_, s)| s.len() <= 40));
        assert_eq!(c[0], (0, "One sentence here. Another one there."));
        for (off, s) in &c {
            assert_eq!(&t[*off..*off + s.len()], *s);
        }
    }

    #[test]
    fn label_mapping() {
        assert_eq!(label_type("given_name"), Some(PiiType::Person));
        assert_eq!(label_type("ZIP_CODE"), Some(PiiType::Address));
        assert_eq!(label_type("URL"), None);
        assert_eq!(label_type("FAVOURITE_COLOUR"), Some(PiiType::Other));
    }
}
