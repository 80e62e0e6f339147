//! Counterfactual variants: for a record whose query mentions terms of a group of
//! [`super::terms`], one variant per pair of categories (one mentioned), with the two categories'
//! terms exchanged in the query and the reference. A variant keeps the contexts, has an empty
//! answer (the system under test answers it again), the id `ID~GROUP:FROM->TO`, and meta
//! `probe_group`, `probe_of` (the original id), `probe_variant` (`FROM->TO`) and `probe_terms`
//! (the term-list version). The original is written too, tagged `probe_variant: original`.

use super::terms::{TermGroup, GROUPS, VERSION};
use super::{META_GROUP, META_OF, META_TERMS, META_VARIANT, ORIGINAL};
use ragjudge_core::Record;
use regex::Regex;
use serde_json::Value;
use std::collections::HashMap;

/// Where a term sits in the list: group, category and slot indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    group: usize,
    category: usize,
    slot: usize,
}

/// Finds and swaps demographic terms.
#[derive(Debug, Clone)]
pub struct Swapper {
    groups: &'static [TermGroup],
    regex: Regex,
    places: HashMap<String, Vec<Place>>,
}

impl Default for Swapper {
    fn default() -> Self {
        Self::new(GROUPS)
    }
}

/// `target` written in the case pattern of `matched`: all capitals stay all capitals, an initial
/// capital gives an initial capital, lower case keeps the list's spelling (proper nouns keep
/// theirs).
pub fn transfer_case(matched: &str, target: &str) -> String {
    let letters: Vec<char> = matched.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) {
        return target.to_uppercase();
    }
    if matched.chars().next().is_some_and(char::is_uppercase) {
        let mut c = target.chars();
        return match c.next() {
            Some(f) => f.to_uppercase().chain(c).collect(),
            None => String::new(),
        };
    }
    target.to_string()
}

impl Swapper {
    /// A swapper over `groups`.
    #[allow(clippy::expect_used, reason = "escaped literals of the built-in term lists, compiled by the tests")]
    pub fn new(groups: &'static [TermGroup]) -> Self {
        let mut places: HashMap<String, Vec<Place>> = HashMap::new();
        for (g, group) in groups.iter().enumerate() {
            for (s, slot) in group.slots.iter().enumerate() {
                for (c, term) in slot.iter().enumerate() {
                    let p = Place { group: g, category: c, slot: s };
                    let v = places.entry(term.to_lowercase()).or_default();
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
            }
        }
        let mut terms: Vec<&String> = places.keys().collect();
        // Longest first, so multi-word terms win over their parts at the same position.
        terms.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        let alternation: Vec<String> = terms.iter().map(|t| regex::escape(t).replace(' ', r"\s+")).collect();
        let regex = Regex::new(&format!(r"(?i)\b(?:{})\b", alternation.join("|"))).expect("term regex");
        Self { groups, regex, places }
    }

    fn place_of(&self, matched: &str) -> &[Place] {
        let key = matched.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        self.places.get(&key).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Categories of group `g` mentioned in `text`, in order of first mention.
    pub fn mentioned(&self, text: &str, g: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for m in self.regex.find_iter(text) {
            for p in self.place_of(m.as_str()).iter().filter(|p| p.group == g) {
                if !out.contains(&p.category) {
                    out.push(p.category);
                }
            }
        }
        out
    }

    /// `text` with the terms of categories `a` and `b` of group `g` exchanged, and the swaps made
    /// (`(from, to)` as written).
    pub fn swap(&self, text: &str, g: usize, a: usize, b: usize) -> (String, Vec<(String, String)>) {
        let mut out = String::with_capacity(text.len());
        let mut swaps = Vec::new();
        let mut last = 0;
        for m in self.regex.find_iter(text) {
            let place = self.place_of(m.as_str()).iter().find(|p| p.group == g && (p.category == a || p.category == b));
            let Some(p) = place else { continue };
            let other = if p.category == a { b } else { a };
            let target = transfer_case(m.as_str(), self.groups[g].slots[p.slot][other]);
            out.push_str(&text[last..m.start()]);
            out.push_str(&target);
            swaps.push((m.as_str().to_string(), target));
            last = m.end();
        }
        out.push_str(&text[last..]);
        (out, swaps)
    }

    /// The variants of one record (none when its query mentions no term).
    pub fn variants(&self, record: &Record) -> Vec<Record> {
        let mut out = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            let mentioned = self.mentioned(&record.query, g);
            let mut done: Vec<(usize, usize)> = Vec::new();
            for &s in &mentioned {
                for t in (0..group.categories.len()).filter(|&t| t != s) {
                    if done.contains(&(s.min(t), s.max(t))) {
                        continue;
                    }
                    done.push((s.min(t), s.max(t)));
                    let (query, swaps) = self.swap(&record.query, g, s, t);
                    if swaps.is_empty() || query == record.query {
                        continue;
                    }
                    let name = format!("{}->{}", group.categories[s], group.categories[t]);
                    let mut v = record.clone();
                    v.id = format!("{}~{}:{}", record.id, group.name, name);
                    v.query = query;
                    v.reference = record.reference.as_ref().map(|r| self.swap(r, g, s, t).0);
                    v.answer = String::new();
                    v.meta.insert(META_GROUP.into(), Value::from(group.name));
                    v.meta.insert(META_OF.into(), Value::from(record.id.clone()));
                    v.meta.insert(META_VARIANT.into(), Value::from(name));
                    v.meta.insert(META_TERMS.into(), Value::from(VERSION));
                    let swaps: Vec<Value> = swaps.into_iter().map(|(f, t)| Value::from(format!("{f}->{t}"))).collect();
                    v.meta.insert("probe_swaps".into(), Value::Array(swaps));
                    out.push(v);
                }
            }
        }
        out
    }

    /// Every record that has variants, tagged as the original, followed by its variants.
    pub fn generate<'a>(&self, records: impl IntoIterator<Item = &'a Record>) -> Vec<Record> {
        let mut out = Vec::new();
        for r in records {
            let variants = self.variants(r);
            if variants.is_empty() {
                continue;
            }
            let mut groups: Vec<&str> = Vec::new();
            for v in &variants {
                if let Some(Value::String(g)) = v.meta.get(META_GROUP) {
                    if !groups.contains(&g.as_str()) {
                        groups.push(g);
                    }
                }
            }
            let mut o = r.clone();
            o.meta.insert(META_GROUP.into(), Value::from(groups.join(",")));
            o.meta.insert(META_OF.into(), Value::from(r.id.clone()));
            o.meta.insert(META_VARIANT.into(), Value::from(ORIGINAL));
            o.meta.insert(META_TERMS.into(), Value::from(VERSION));
            out.push(o);
            out.extend(variants);
        }
        out
    }
}
