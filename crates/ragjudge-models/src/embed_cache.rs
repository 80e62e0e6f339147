//! An in-memory cache in front of any [`Embedder`], so that a sentence seen again (in the same
//! call or a later one) is embedded once.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::error::ModelError;
use crate::traits::Embedder;

/// Cache key: the inner embedder's identity and the text.
type Key = (String, String);

#[derive(Default)]
struct Store {
    map: HashMap<Key, Vec<f32>>,
    /// Insertion order, for first-in first-out eviction.
    order: VecDeque<Key>,
}

/// An [`Embedder`] that remembers up to `capacity` vectors, keyed by (identity, text); when full
/// the oldest entry goes first. Its identity and vectors are those of the inner embedder.
pub struct CachedEmbedder<E: Embedder> {
    inner: E,
    identity: String,
    capacity: usize,
    store: Mutex<Store>,
}

impl<E: Embedder> std::fmt::Debug for CachedEmbedder<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedEmbedder")
            .field("identity", &self.identity)
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish()
    }
}

impl<E: Embedder> CachedEmbedder<E> {
    /// Wraps `inner`, keeping at most `capacity` vectors (0 disables caching, but repeats within
    /// one call are still embedded once).
    pub fn new(inner: E, capacity: usize) -> Self {
        let identity = inner.identity();
        Self { inner, identity, capacity, store: Mutex::new(Store::default()) }
    }

    /// The wrapped embedder.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// Vectors held now.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Whether no vector is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every held vector.
    pub fn clear(&self) {
        let mut s = self.lock();
        s.map.clear();
        s.order.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic elsewhere cannot leave the map inconsistent (each insert is whole), so a
        // poisoned lock is still usable.
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn key(&self, text: &str) -> Key {
        (self.identity.clone(), text.to_string())
    }
}

impl<E: Embedder> Embedder for CachedEmbedder<E> {
    fn identity(&self) -> String {
        self.identity.clone()
    }

    /// Passages are embedded by the inner model each time: the cache holds [`Embedder::embed`]'s
    /// vectors, which differ for a model with a passage prompt.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.inner.embed_passages(texts)
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        // Distinct texts not in the cache, and where each appears.
        let mut missing: Vec<&str> = Vec::new();
        let mut missing_at: HashMap<&str, Vec<usize>> = HashMap::new();
        {
            let store = self.lock();
            for (i, &t) in texts.iter().enumerate() {
                if let Some(v) = store.map.get(&self.key(t)) {
                    out[i] = Some(v.clone());
                } else {
                    let slots = missing_at.entry(t).or_default();
                    if slots.is_empty() {
                        missing.push(t);
                    }
                    slots.push(i);
                }
            }
        }
        if !missing.is_empty() {
            let vectors = self.inner.embed(&missing)?;
            if vectors.len() != missing.len() {
                return Err(ModelError::Inference(
                    format!("embedder returned {} vectors for {} texts", vectors.len(), missing.len()).into(),
                ));
            }
            let mut store = self.lock();
            for (t, v) in missing.iter().zip(vectors) {
                for &i in &missing_at[t] {
                    out[i] = Some(v.clone());
                }
                if self.capacity == 0 {
                    continue;
                }
                let key = self.key(t);
                if store.map.contains_key(&key) {
                    continue;
                }
                while store.map.len() >= self.capacity {
                    match store.order.pop_front() {
                        Some(old) => {
                            store.map.remove(&old);
                        }
                        None => break,
                    }
                }
                store.order.push_back(key.clone());
                store.map.insert(key, v);
            }
        }
        Ok(out.into_iter().map(|v| v.unwrap_or_default()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Embeds a text as `[len, first byte]` and counts the texts it was asked for.
    struct Counting {
        texts: AtomicUsize,
        calls: AtomicUsize,
    }

    impl Counting {
        fn new() -> Self {
            Self { texts: AtomicUsize::new(0), calls: AtomicUsize::new(0) }
        }
    }

    impl Embedder for Counting {
        fn identity(&self) -> String {
            "counting:0".into()
        }
        fn dim(&self) -> usize {
            2
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.texts.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32, t.bytes().next().unwrap_or(0) as f32]).collect())
        }
        /// A passage is embedded with its length negated, as a passage prompt would change it.
        fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            let mut v = self.embed(texts)?;
            v.iter_mut().for_each(|x| x[0] = -x[0]);
            Ok(v)
        }
    }

    fn expected(texts: &[&str]) -> Vec<Vec<f32>> {
        Counting::new().embed(texts).unwrap()
    }

    #[test]
    fn repeats_are_embedded_once_across_calls() {
        let c = CachedEmbedder::new(Counting::new(), 100);
        let a = ["alpha", "beta", "alpha", "gamma"];
        assert_eq!(c.embed(&a).unwrap(), expected(&a));
        assert_eq!(c.inner().texts.load(Ordering::SeqCst), 3);
        let b = ["gamma", "beta", "delta"];
        assert_eq!(c.embed(&b).unwrap(), expected(&b));
        assert_eq!(c.inner().texts.load(Ordering::SeqCst), 4);
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn passages_go_to_the_inner_model_and_never_come_from_the_query_cache() {
        let c = CachedEmbedder::new(Counting::new(), 100);
        assert_eq!(c.embed(&["alpha"]).unwrap(), vec![vec![5.0, 97.0]]);
        assert_eq!(c.embed_passages(&["alpha"]).unwrap(), vec![vec![-5.0, 97.0]]);
        assert_eq!(c.embed_passages(&["alpha"]).unwrap(), vec![vec![-5.0, 97.0]]);
        assert_eq!(c.inner().calls.load(Ordering::SeqCst), 3);
        assert_eq!(c.embed(&["alpha"]).unwrap(), vec![vec![5.0, 97.0]], "the query vector is still cached");
        assert_eq!(c.inner().calls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn all_hits_make_no_inner_call() {
        let c = CachedEmbedder::new(Counting::new(), 10);
        c.embed(&["x", "y"]).unwrap();
        c.embed(&["y", "x", "x"]).unwrap();
        assert_eq!(c.inner().calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn capacity_bounds_entries_and_evicts_oldest() {
        let c = CachedEmbedder::new(Counting::new(), 2);
        c.embed(&["a", "bb", "ccc"]).unwrap();
        assert_eq!(c.len(), 2);
        // "a" was evicted first, so it is embedded again; "ccc" is still held.
        c.embed(&["ccc"]).unwrap();
        assert_eq!(c.inner().texts.load(Ordering::SeqCst), 3);
        c.embed(&["a"]).unwrap();
        assert_eq!(c.inner().texts.load(Ordering::SeqCst), 4);
        assert!(c.len() <= 2);
    }

    #[test]
    fn zero_capacity_still_dedups_within_a_call() {
        let c = CachedEmbedder::new(Counting::new(), 0);
        let t = ["same", "same", "other"];
        assert_eq!(c.embed(&t).unwrap(), expected(&t));
        assert_eq!(c.inner().texts.load(Ordering::SeqCst), 2);
        assert!(c.is_empty());
    }

    #[test]
    fn identity_and_dim_pass_through() {
        let c = CachedEmbedder::new(Counting::new(), 1);
        assert_eq!(c.identity(), "counting:0");
        assert_eq!(c.dim(), 2);
        assert!(c.embed(&[]).unwrap().is_empty());
        c.clear();
        assert!(c.is_empty());
    }
}
