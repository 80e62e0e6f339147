//! The forward pass in plain Rust loops over the stored `f32` weights (`f64` accumulation), for
//! scoring one record at a time without candle. The equations are in the module docs of
//! [`crate::moe`].

use super::{Head, MoeModel};
use crate::bins::bin_one;

/// The start of each expert embedding e_m in the flat (M, N, D) table.
fn expert_offsets(model: &MoeModel, row: &[f64]) -> Vec<usize> {
    let n = model.params.n_bins;
    let d = model.params.embedding_dim;
    row.iter().enumerate().map(|(m, &v)| (m * n + bin_one(v, model.bins.edges(m))) * d).collect()
}

/// a . h where h = [e_1; ...; e_M] is given by the expert offsets into `table`.
fn dot_concat(a: &[f32], table: &[f32], offsets: &[usize], d: usize) -> f64 {
    let mut acc = 0.0f64;
    for (m, &off) in offsets.iter().enumerate() {
        let w = &a[m * d..(m + 1) * d];
        let e = &table[off..off + d];
        acc += w.iter().zip(e).map(|(&w, &e)| f64::from(w) * f64::from(e)).sum::<f64>();
    }
    acc
}

/// The gate's softmax over the metrics, for the offsets of one record.
fn softmax_gate(wg: &[f32], bg: &[f32], table: &[f32], offsets: &[usize], d: usize) -> Vec<f64> {
    let md = offsets.len() * d;
    let mut g: Vec<f64> = bg
        .iter()
        .enumerate()
        .map(|(m, &c)| f64::from(c) + dot_concat(&wg[m * md..(m + 1) * md], table, offsets, d))
        .collect();
    let max = g.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for v in &mut g {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in &mut g {
        *v /= sum;
    }
    g
}

/// The network output z (standardised label or logit) for a valid row.
pub(super) fn output(model: &MoeModel, row: &[f64]) -> f64 {
    let d = model.params.embedding_dim;
    let table = &model.weights.embeddings.data;
    let offsets = expert_offsets(model, row);
    match &model.weights.head {
        Head::Concat { w1, b1, w2, b2 } => {
            let md = offsets.len() * d;
            let mut z = f64::from(b2.data[0]);
            for (j, (&c, &v)) in b1.data.iter().zip(&w2.data).enumerate() {
                let a = f64::from(c) + dot_concat(&w1.data[j * md..(j + 1) * md], table, &offsets, d);
                if a > 0.0 {
                    z += f64::from(v) * a;
                }
            }
            z
        }
        Head::Gated { wg, bg, we, ce, b } => {
            let g = softmax_gate(&wg.data, &bg.data, table, &offsets, d);
            let mut z = f64::from(b.data[0]);
            for (m, &off) in offsets.iter().enumerate() {
                let s = f64::from(ce.data[m])
                    + we.data[m * d..(m + 1) * d]
                        .iter()
                        .zip(&table[off..off + d])
                        .map(|(&w, &e)| f64::from(w) * f64::from(e))
                        .sum::<f64>();
                z += g[m] * s;
            }
            z
        }
    }
}

/// The gate weights of a valid row (MoE-CIU), `None` for MoE-Concat.
pub(super) fn gate(model: &MoeModel, row: &[f64]) -> Option<Vec<f64>> {
    match &model.weights.head {
        Head::Concat { .. } => None,
        Head::Gated { wg, bg, .. } => {
            let offsets = expert_offsets(model, row);
            Some(softmax_gate(&wg.data, &bg.data, &model.weights.embeddings.data, &offsets, model.params.embedding_dim))
        }
    }
}
