//! Topic strata of a collection (HCAT section 2, steps 2-3): embeddings reduced by PCA,
//! clustered, labelled by class-based TF-IDF, and projected to two dimensions for the topic map
//! (the first two principal components: deterministic and fast; t-SNE or UMAP would draw tighter
//! islands but neither is needed to read coverage off the map).

use ndarray::Array2;
use ragjudge_charts::{Chart, ChartBody, ScatterPoint};
use ragjudge_models::Embedder;
use serde::Serialize;

use crate::chunk::Chunk;
use crate::cluster::{dbscan, kmeans_auto, suggest_eps, Clustering, KMeansOptions};
use crate::error::TestgenError;
use crate::reduce::{to_matrix, Projection};
use crate::topics::{class_tfidf, terms};

/// DBSCAN's default neighbours (the point included) that make a core point.
pub const DEFAULT_MIN_POINTS: usize = 4;

/// Which clustering makes the strata.
#[derive(Debug, Clone, Copy, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClusterMethod {
    /// k-means, k given or chosen by silhouette.
    KMeans(KMeansOptions),
    /// DBSCAN; `eps` from the data's k-distances when not given.
    Dbscan {
        /// Neighbourhood radius in the reduced space.
        eps: Option<f64>,
        /// Neighbours (the point included) that make a core point.
        min_points: usize,
    },
}

/// Settings of the strata.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct StrataOptions {
    /// PCA dimensions the clustering works in (capped by the data).
    pub dims: usize,
    /// Clustering.
    pub method: ClusterMethod,
    /// Terms kept per topic.
    pub top_terms: usize,
}

impl Default for StrataOptions {
    fn default() -> Self {
        Self { dims: 10, method: ClusterMethod::KMeans(KMeansOptions::default()), top_terms: 8 }
    }
}

/// One stratum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Topic {
    /// `t0`, `t1`, ... by cluster, or `noise` for DBSCAN's unclustered points.
    pub id: String,
    /// The three heaviest terms, joined by `/`.
    pub label: String,
    /// Heaviest c-TF-IDF terms with their weights.
    pub terms: Vec<(String, f64)>,
    /// Chunks in it.
    pub size: usize,
}

/// The strata of a collection's chunks.
#[derive(Debug, Clone, Serialize)]
pub struct Strata {
    /// Topics, clusters first then noise.
    pub topics: Vec<Topic>,
    /// Per chunk, the index of its topic in `topics`.
    pub assignment: Vec<usize>,
    /// Per chunk, its position on the topic map (first two principal components).
    pub coords: Vec<(f64, f64)>,
    /// Dimensions the clustering used.
    pub dims: usize,
    /// Share of variance kept by those dimensions (sum of explained variance ratios).
    pub variance_kept: f64,
    /// The clustering (labels, silhouette, k tried).
    pub clustering: Clustering,
}

/// Embeds chunk texts in batches.
pub fn embed_chunks(embedder: &dyn Embedder, chunks: &[Chunk], batch: usize) -> Result<Array2<f64>, TestgenError> {
    let mut vectors = Vec::with_capacity(chunks.len());
    for group in chunks.chunks(batch.max(1)) {
        let texts: Vec<&str> = group.iter().map(|c| c.text.as_str()).collect();
        vectors.extend(embedder.embed(&texts)?);
    }
    to_matrix(&vectors)
}

/// Reduces, clusters and labels.
pub fn build_strata(chunks: &[Chunk], vectors: &Array2<f64>, options: &StrataOptions) -> Result<Strata, TestgenError> {
    let (n, d) = vectors.dim();
    if n != chunks.len() {
        return Err(TestgenError::Settings(format!("{} chunks but {n} vectors", chunks.len())));
    }
    if n < 3 {
        return Err(TestgenError::Settings(format!("topic strata need at least 3 chunks, the collection gave {n}")));
    }
    let dims = options.dims.clamp(2, d.min(n - 1).max(2)).min(d.min(n));
    let projection = Projection::fit(vectors, dims)?;
    let reduced = projection.transform(vectors);
    let clustering = match options.method {
        ClusterMethod::KMeans(k) => kmeans_auto(&reduced, &k)?,
        ClusterMethod::Dbscan { eps, min_points } => {
            let eps = eps.unwrap_or_else(|| suggest_eps(&reduced, min_points, 0.5));
            dbscan(&reduced, eps, min_points)?
        }
    };
    let has_noise = clustering.labels.iter().any(Option::is_none);
    let mut names: Vec<String> = (0..clustering.clusters).map(|c| format!("t{c}")).collect();
    if has_noise {
        names.push("noise".into());
    }
    let noise = clustering.clusters;
    let assignment: Vec<usize> = clustering.labels.iter().map(|l| l.unwrap_or(noise)).collect();
    let mut class_terms: Vec<(String, Vec<String>)> = names.iter().map(|n| (n.clone(), Vec::new())).collect();
    for (chunk, &a) in chunks.iter().zip(&assignment) {
        class_terms[a].1.extend(terms(&chunk.text));
    }
    let weighted = class_tfidf(&class_terms, options.top_terms);
    let topics = weighted
        .into_iter()
        .enumerate()
        .map(|(i, t)| Topic {
            id: t.class,
            label: t.terms.iter().take(3).map(|(w, _)| w.as_str()).collect::<Vec<_>>().join("/"),
            terms: t.terms,
            size: assignment.iter().filter(|&&a| a == i).count(),
        })
        .collect();
    let coords = reduced.outer_iter().map(|r| (r[0], r[1])).collect();
    Ok(Strata {
        topics,
        assignment,
        coords,
        dims,
        variance_kept: projection.explained_variance_ratio().sum(),
        clustering,
    })
}

/// The topic map: chunks on the first two principal components, coloured by topic, the sampled
/// ones marked.
pub fn topic_map(strata: &Strata, sampled: &[usize]) -> Chart {
    let mut marked = vec![false; strata.coords.len()];
    for &i in sampled {
        if let Some(m) = marked.get_mut(i) {
            *m = true;
        }
    }
    // Points grouped by topic so that the legend lists topics in order.
    let mut points = Vec::with_capacity(strata.coords.len());
    for (t, topic) in strata.topics.iter().enumerate() {
        let group = format!("{} {} (n={})", topic.id, topic.label, topic.size);
        for (i, (&(x, y), _)) in strata.coords.iter().zip(&strata.assignment).enumerate().filter(|(_, (_, &a))| a == t)
        {
            points.push(ScatterPoint { x, y, group: group.clone(), marked: marked[i] });
        }
    }
    Chart {
        title: format!(
            "Topic map: {} chunks in {} topics, {} sampled (marked)",
            strata.coords.len(),
            strata.topics.len(),
            sampled.len()
        ),
        x_label: "principal component 1".into(),
        y_label: "principal component 2".into(),
        body: ChartBody::Scatter { points },
    }
}
