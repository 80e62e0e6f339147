//! Dimension reduction (HCAT section 2, step 2): principal component analysis through
//! `linfa-reduction`, with explained variance as scikit-learn defines it.
//!
//! linfa's own `explained_variance` divides by the number of components instead of the number of
//! samples less one, and its ratio is relative to the kept components only; both are computed here
//! from the singular values as scikit-learn's `PCA` does: `sigma^2 / (n - 1)` and that over the
//! total variance of the data.

use linfa::traits::{Fit, Predict};
use linfa::DatasetBase;
use linfa_reduction::Pca;
use ndarray::{Array1, Array2, Axis};

use crate::error::TestgenError;

/// A fitted projection onto the first principal components.
#[derive(Debug, Clone)]
pub struct Projection {
    model: Pca<f64>,
    explained_variance: Array1<f64>,
    explained_variance_ratio: Array1<f64>,
}

impl Projection {
    /// Fits `components` principal components of the rows of `data` (samples x features).
    pub fn fit(data: &Array2<f64>, components: usize) -> Result<Self, TestgenError> {
        let (n, d) = data.dim();
        if n < 2 {
            return Err(TestgenError::Settings(format!("PCA needs at least 2 samples, got {n}")));
        }
        if components == 0 || components > d.min(n) {
            return Err(TestgenError::Settings(format!(
                "PCA to {components} dimensions needs 1..={} (samples {n}, features {d})",
                d.min(n)
            )));
        }
        let dataset = DatasetBase::from(data.clone());
        let model = Pca::params(components)
            .fit(&dataset)
            .map_err(|e| TestgenError::Numeric { step: "pca", message: e.to_string() })?;
        let denom = (n - 1) as f64;
        let explained_variance = model.singular_values().mapv(|s| s * s / denom);
        let total: f64 = data.var_axis(Axis(0), 1.0).sum();
        let explained_variance_ratio =
            if total > 0.0 { explained_variance.mapv(|v| v / total) } else { Array1::zeros(components) };
        Ok(Self { model, explained_variance, explained_variance_ratio })
    }

    /// Variance along each component (scikit-learn's `explained_variance_`).
    pub fn explained_variance(&self) -> &Array1<f64> {
        &self.explained_variance
    }

    /// Share of the data's total variance along each component (`explained_variance_ratio_`).
    pub fn explained_variance_ratio(&self) -> &Array1<f64> {
        &self.explained_variance_ratio
    }

    /// Unit vectors of the components, one per row (`components_`, up to sign).
    pub fn components(&self) -> &Array2<f64> {
        self.model.components()
    }

    /// The rows of `data` in component coordinates.
    pub fn transform(&self, data: &Array2<f64>) -> Array2<f64> {
        self.model.predict(data)
    }
}

/// Rows of `f32` vectors as a matrix of `f64`.
pub fn to_matrix(vectors: &[Vec<f32>]) -> Result<Array2<f64>, TestgenError> {
    let d = vectors.first().map_or(0, Vec::len);
    if let Some((i, v)) = vectors.iter().enumerate().find(|(_, v)| v.len() != d) {
        return Err(TestgenError::Numeric {
            step: "embeddings",
            message: format!("vector {i} has {} dimensions, the first has {d}", v.len()),
        });
    }
    let flat: Vec<f64> = vectors.iter().flat_map(|v| v.iter().map(|&x| f64::from(x))).collect();
    Array2::from_shape_vec((vectors.len(), d), flat)
        .map_err(|e| TestgenError::Numeric { step: "embeddings", message: e.to_string() })
}
