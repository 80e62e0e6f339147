//! Wasserstein (earth mover's) distance between two sentence sets (HCAT §3.3.2).
//!
//! With uniform weights `1/n` on the `n` sources and `1/k` on the `k` sinks, scaling every mass by
//! `n k` turns the transport problem into an integer one: source `i` supplies `k`, sink `j`
//! demands `n`. An integral optimal plan exists and successive shortest paths find it exactly
//! (up to floating-point rounding of the costs); the value is the plan's cost divided by `n k`.

use crate::error::HcatError;

/// An optimal transport plan and its cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Transport {
    /// `W = min_gamma sum_ij gamma_ij d_ij`.
    pub cost: f64,
    /// The non-zero entries `(i, j, gamma_ij)` of the optimal plan, by `i` then `j`.
    pub plan: Vec<(usize, usize, f64)>,
}

/// The paper's approximation `W ~ (1/(n k)) sum_ij d_ij`, the mean pairwise cost (section 3.3.2);
/// `None` when there is no pair.
pub fn mean_pairwise(cost: &[Vec<f64>]) -> Option<f64> {
    let pairs: usize = cost.iter().map(Vec::len).sum();
    if pairs == 0 {
        return None;
    }
    Some(cost.iter().flatten().sum::<f64>() / pairs as f64)
}

/// The exact Wasserstein distance between uniform distributions on the rows (`n` sources, mass
/// `1/n` each) and the columns (`k` sinks, mass `1/k` each) of `cost` (section 3.3.2, first
/// equation), by min-cost flow with successive shortest paths (Dijkstra with potentials).
pub fn exact_uniform(cost: &[Vec<f64>]) -> Result<Transport, HcatError> {
    let n = cost.len();
    let k = cost.first().map_or(0, Vec::len);
    if n == 0 || k == 0 {
        return Err(HcatError::EmptyTransport);
    }
    if cost.iter().any(|row| row.len() != k) {
        return Err(HcatError::InvalidCost(format!("rows of different lengths (expected {k} columns)")));
    }
    if cost.iter().flatten().any(|c| !c.is_finite()) {
        return Err(HcatError::InvalidCost("a cost is not finite".into()));
    }
    // Every plan moves total mass 1, so subtracting the smallest cost shifts all plans' costs
    // equally; it makes every cost non-negative, so zero potentials start Dijkstra.
    let floor = cost.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    let mut net = FlowNetwork::new(n + k + 2);
    let (source, sink) = (n + k, n + k + 1);
    let (supply, demand) = (k as i64, n as i64);
    let mut arcs = Vec::with_capacity(n * k);
    for (i, row) in cost.iter().enumerate() {
        net.add_edge(source, i, supply, 0.0);
        for (j, &c) in row.iter().enumerate() {
            arcs.push(net.add_edge(i, n + j, supply.min(demand), c - floor));
        }
    }
    for j in 0..k {
        net.add_edge(n + j, sink, demand, 0.0);
    }
    let total = supply * demand;
    let moved = net.min_cost_flow(source, sink, total);
    if moved != total {
        return Err(HcatError::InvalidCost(format!("only {moved} of {total} units could be moved")));
    }
    let scale = total as f64;
    let mut value = 0.0;
    let mut plan = Vec::new();
    for (a, &edge) in arcs.iter().enumerate() {
        let flow = net.flow(edge);
        if flow > 0 {
            let (i, j) = (a / k, a % k);
            value += flow as f64 * cost[i][j];
            plan.push((i, j, flow as f64 / scale));
        }
    }
    Ok(Transport { cost: value / scale, plan })
}

/// One residual arc.
#[derive(Debug, Clone)]
struct Edge {
    to: usize,
    rev: usize,
    cap: i64,
    original: i64,
    cost: f64,
}

/// A small residual graph for min-cost flow.
struct FlowNetwork {
    adj: Vec<Vec<Edge>>,
}

impl FlowNetwork {
    fn new(nodes: usize) -> Self {
        Self { adj: vec![Vec::new(); nodes] }
    }

    /// Adds `from -> to` and its reverse arc; returns a handle for [`FlowNetwork::flow`].
    fn add_edge(&mut self, from: usize, to: usize, cap: i64, cost: f64) -> (usize, usize) {
        let (fi, ti) = (self.adj[from].len(), self.adj[to].len() + usize::from(from == to));
        self.adj[from].push(Edge { to, rev: ti, cap, original: cap, cost });
        self.adj[to].push(Edge { to: from, rev: fi, cap: 0, original: 0, cost: -cost });
        (from, fi)
    }

    fn flow(&self, (node, idx): (usize, usize)) -> i64 {
        let e = &self.adj[node][idx];
        e.original - e.cap
    }

    /// Pushes up to `want` units from `s` to `t` along successive shortest paths; returns the
    /// amount pushed. Costs must be non-negative. Reduced costs are clamped at zero, which only
    /// absorbs rounding (they are non-negative in exact arithmetic).
    fn min_cost_flow(&mut self, s: usize, t: usize, want: i64) -> i64 {
        let v = self.adj.len();
        let mut potential = vec![0.0f64; v];
        let mut pushed = 0;
        while pushed < want {
            let mut dist = vec![f64::INFINITY; v];
            let mut prev: Vec<Option<(usize, usize)>> = vec![None; v];
            let mut done = vec![false; v];
            dist[s] = 0.0;
            // Dense Dijkstra: the graph is small and nearly complete.
            loop {
                let mut u = usize::MAX;
                for x in 0..v {
                    if !done[x] && dist[x].is_finite() && (u == usize::MAX || dist[x] < dist[u]) {
                        u = x;
                    }
                }
                if u == usize::MAX {
                    break;
                }
                done[u] = true;
                for (ei, e) in self.adj[u].iter().enumerate() {
                    if e.cap <= 0 || done[e.to] {
                        continue;
                    }
                    let reduced = (e.cost + potential[u] - potential[e.to]).max(0.0);
                    let d = dist[u] + reduced;
                    if d < dist[e.to] {
                        dist[e.to] = d;
                        prev[e.to] = Some((u, ei));
                    }
                }
            }
            if !dist[t].is_finite() {
                break;
            }
            for x in 0..v {
                if dist[x].is_finite() {
                    potential[x] += dist[x];
                }
            }
            let mut amount = want - pushed;
            let mut x = t;
            while let Some((u, ei)) = prev[x] {
                amount = amount.min(self.adj[u][ei].cap);
                x = u;
            }
            let mut x = t;
            while let Some((u, ei)) = prev[x] {
                let rev = self.adj[u][ei].rev;
                self.adj[u][ei].cap -= amount;
                self.adj[x][rev].cap += amount;
                x = u;
            }
            pushed += amount;
        }
        pushed
    }
}
