//! Risk and safety metrics (seed 003, section 4): PII detection, toxicity, counterfactual bias probes.
