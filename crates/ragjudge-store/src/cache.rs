//! The SQLite call cache: every model call is stored under a key of model identity + call kind +
//! request, so an interrupted run resumes where it stopped and a re-run costs nothing.
//!
//! The database runs in WAL mode with a busy timeout, so several threads (through one
//! [`CallCache`]) and several processes (each with its own) can read and write one file at once.
//! Each [`CallCache::put`] is its own committed transaction: a process killed with SIGKILL loses
//! at most the call it was making. `synchronous = NORMAL` keeps commits durable across process
//! crashes (not necessarily across power loss, where the last commits may roll back).

use ragjudge_models::{ModelError, Reason};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Schema version stored in `PRAGMA user_version`; a file with a newer one is refused.
pub const SCHEMA_VERSION: i64 = 1;

/// How long a writer waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Counts of cache look-ups since the cache was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Look-ups answered from the cache.
    pub hits: u64,
    /// Look-ups that found nothing (always, for a disabled cache).
    pub misses: u64,
    /// Entries written.
    pub writes: u64,
}

/// A persistent key -> JSON value store for model calls (or a disabled one that stores nothing).
pub struct CallCache {
    conn: Option<Mutex<Connection>>,
    path: Option<PathBuf>,
    hits: AtomicU64,
    misses: AtomicU64,
    writes: AtomicU64,
}

impl std::fmt::Debug for CallCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallCache").field("path", &self.path).field("stats", &self.stats()).finish()
    }
}

fn cache_err(context: &str, e: impl std::error::Error + Send + Sync + 'static) -> ModelError {
    ModelError::Cache(Reason::caused(context, e))
}

impl CallCache {
    /// Opens (creating it and its directory if needed) the cache database at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ModelError> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| cache_err(&format!("cannot create {}", dir.display()), e))?;
        }
        let shown = path.display().to_string();
        let conn = Connection::open(path).map_err(|e| cache_err(&shown, e))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| cache_err(&shown, e))?;
        // Switching to WAL needs a moment without other writers; retry briefly if another process
        // is initialising the same file right now.
        let mut tries = 0;
        loop {
            let mode: Result<String, _> = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0));
            match mode {
                Ok(_) => break,
                Err(_) if tries < 50 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(cache_err(&format!("{shown}: cannot enable WAL"), e)),
            }
        }
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(|e| cache_err(&shown, e))?;
        Self::migrate(&conn).map_err(|e| match e {
            ModelError::Cache(m) => ModelError::Cache(m.context(&shown)),
            other => other,
        })?;
        Ok(Self {
            conn: Some(Mutex::new(conn)),
            path: Some(path.to_path_buf()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            writes: AtomicU64::new(0),
        })
    }

    /// Opens the cache at its default place, [`default_cache_path`].
    pub fn open_default() -> Result<Self, ModelError> {
        Self::open(default_cache_path())
    }

    /// A cache that stores nothing and finds nothing (for `--no-cache`).
    pub fn disabled() -> Self {
        Self { conn: None, path: None, hits: AtomicU64::new(0), misses: AtomicU64::new(0), writes: AtomicU64::new(0) }
    }

    fn migrate(conn: &Connection) -> Result<(), ModelError> {
        let version: i64 =
            conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| cache_err("schema", e))?;
        if version > SCHEMA_VERSION {
            return Err(ModelError::Cache(Reason::new(format!(
                "schema version {version} is newer than this program's ({SCHEMA_VERSION}); use a newer ragjudge or another cache file"
            ))));
        }
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        // IMMEDIATE takes the write lock first, so two processes creating the schema at once
        // serialise on the busy timeout instead of failing.
        conn.execute_batch(
            "BEGIN IMMEDIATE;
             CREATE TABLE IF NOT EXISTS calls (
                 key TEXT PRIMARY KEY NOT NULL,
                 value TEXT NOT NULL,
                 created_unix INTEGER NOT NULL
             );
             PRAGMA user_version = 1;
             COMMIT;",
        )
        .map_err(|e| cache_err("cannot create schema", e))
    }

    /// Whether this cache stores anything.
    pub fn is_enabled(&self) -> bool {
        self.conn.is_some()
    }

    /// The database file, for an enabled cache.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The stored value of `key`, if any. A read error or an unreadable value counts as a miss.
    pub fn get(&self, key: &str) -> Option<Value> {
        let found = self.conn.as_ref().and_then(|c| {
            let conn = c.lock().unwrap_or_else(|p| p.into_inner());
            let text: Option<String> = conn
                .query_row("SELECT value FROM calls WHERE key = ?1", params![key], |r| r.get(0))
                .optional()
                .ok()
                .flatten();
            text.and_then(|t| serde_json::from_str(&t).ok())
        });
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        } else {
            self.misses.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Stores `value` under `key` (replacing any earlier value), committed at once.
    /// A disabled cache does nothing.
    pub fn put(&self, key: &str, value: &Value) -> Result<(), ModelError> {
        let Some(c) = self.conn.as_ref() else {
            return Ok(());
        };
        let text = serde_json::to_string(value).map_err(|e| cache_err("cannot encode value", e))?;
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        let conn = c.lock().unwrap_or_else(|p| p.into_inner());
        conn.execute(
            "INSERT OR REPLACE INTO calls (key, value, created_unix) VALUES (?1, ?2, ?3)",
            params![key, text, now],
        )
        .map_err(|e| cache_err("cannot write", e))?;
        self.writes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Whether `key` is stored, without counting a hit or a miss.
    pub fn contains(&self, key: &str) -> bool {
        self.conn.as_ref().is_some_and(|c| {
            let conn = c.lock().unwrap_or_else(|p| p.into_inner());
            conn.query_row("SELECT 1 FROM calls WHERE key = ?1", params![key], |_| Ok(()))
                .optional()
                .ok()
                .flatten()
                .is_some()
        })
    }

    /// Number of stored entries (0 for a disabled cache).
    pub fn len(&self) -> Result<u64, ModelError> {
        let Some(c) = self.conn.as_ref() else {
            return Ok(0);
        };
        let conn = c.lock().unwrap_or_else(|p| p.into_inner());
        let n: i64 =
            conn.query_row("SELECT COUNT(*) FROM calls", [], |r| r.get(0)).map_err(|e| cache_err("count", e))?;
        Ok(n as u64)
    }

    /// Copies into this cache every entry of the cache file `other` that it lacks, and returns
    /// how many were added. Equal keys hold equal answers (the key is the whole request), so an
    /// entry both hold is kept as is. This is how the caches of workers that judged disjoint
    /// shards are combined, so that one run over all records replays every judgement. `other`
    /// is opened read-only; a file that is not a call cache, or one of a newer schema, is
    /// refused with nothing copied. Disabled caches copy nothing.
    pub fn absorb(&self, other: &Path) -> Result<u64, ModelError> {
        let Some(c) = self.conn.as_ref() else {
            return Ok(0);
        };
        let shown = other.display().to_string();
        let src = Connection::open_with_flags(other, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| cache_err(&shown, e))?;
        src.busy_timeout(BUSY_TIMEOUT).map_err(|e| cache_err(&shown, e))?;
        let version: i64 = src.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| cache_err(&shown, e))?;
        if version != SCHEMA_VERSION {
            return Err(ModelError::Cache(Reason::new(format!(
                "{shown}: not a call cache of schema version {SCHEMA_VERSION} (found {version})"
            ))));
        }
        let mut rows = src.prepare("SELECT key, value, created_unix FROM calls").map_err(|e| cache_err(&shown, e))?;
        let mut rows = rows.query([]).map_err(|e| cache_err(&shown, e))?;
        let mut conn = c.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction().map_err(|e| cache_err("absorb", e))?;
        let mut added = 0u64;
        {
            let mut insert = tx
                .prepare("INSERT OR IGNORE INTO calls (key, value, created_unix) VALUES (?1, ?2, ?3)")
                .map_err(|e| cache_err("absorb", e))?;
            while let Some(row) = rows.next().map_err(|e| cache_err(&shown, e))? {
                let (key, value, created): (String, String, i64) = (
                    row.get(0).map_err(|e| cache_err(&shown, e))?,
                    row.get(1).map_err(|e| cache_err(&shown, e))?,
                    row.get(2).map_err(|e| cache_err(&shown, e))?,
                );
                added += insert.execute(params![key, value, created]).map_err(|e| cache_err("absorb", e))? as u64;
            }
        }
        tx.commit().map_err(|e| cache_err("absorb", e))?;
        Ok(added)
    }

    /// Whether the cache holds no entry.
    pub fn is_empty(&self) -> Result<bool, ModelError> {
        Ok(self.len()? == 0)
    }

    /// Hits, misses and writes since the cache was opened.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
        }
    }
}

/// `$RAGJUDGE_HOME/cache.sqlite`, where the home is `$RAGJUDGE_HOME` or `$HOME/.cache/ragjudge`.
pub fn default_cache_path() -> PathBuf {
    crate::home::ragjudge_home().join("cache.sqlite")
}

/// The cache key of a call: hex sha256 of the canonical JSON (object keys sorted, no spaces) of
/// `{"identity", "kind", "payload"}`. Equal requests give equal keys whatever the field order.
pub fn cache_key(identity: &str, kind: &str, payload: &impl Serialize) -> String {
    let payload = serde_json::to_value(payload).unwrap_or_else(|e| Value::String(format!("<unserialisable: {e}>")));
    let mut text = String::new();
    write_canonical(&serde_json::json!({"identity": identity, "kind": kind, "payload": payload}), &mut text);
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Writes `v` as JSON with object keys in byte order at every level.
fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_ignores_field_order_and_is_hex_sha256() {
        let a = cache_key("m", "generate", &json!({"x": 1, "y": [1, {"b": 2, "a": 1}]}));
        let b = cache_key("m", "generate", &json!({"y": [1, {"a": 1, "b": 2}], "x": 1}));
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, cache_key("m", "label_probs", &json!({"x": 1, "y": [1, {"b": 2, "a": 1}]})));
        assert_ne!(a, cache_key("m2", "generate", &json!({"x": 1, "y": [1, {"b": 2, "a": 1}]})));
    }

    #[test]
    fn key_matches_sha256_of_canonical_text() {
        // sha256 of the canonical text, computed independently with coreutils `sha256sum`:
        // printf '%s' '{"identity":"id","kind":"k","payload":{"a":1,"b":"x"}}' | sha256sum
        let text = r#"{"identity":"id","kind":"k","payload":{"a":1,"b":"x"}}"#;
        let mut s = String::new();
        write_canonical(&json!({"kind": "k", "payload": {"b": "x", "a": 1}, "identity": "id"}), &mut s);
        assert_eq!(s, text);
        assert_eq!(
            cache_key("id", "k", &json!({"b": "x", "a": 1})),
            "9eb4b339ba30de92465060d6f3ba84735881e59e0baadf8824e02cfda91d053a"
        );
    }

    #[test]
    fn absorbing_shard_caches_adds_what_is_missing_once() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, all) = (dir.path().join("a.sqlite"), dir.path().join("b.sqlite"), dir.path().join("all.sqlite"));
        let (ca, cb) = (CallCache::open(&a).unwrap(), CallCache::open(&b).unwrap());
        ca.put("k1", &json!(1)).unwrap();
        ca.put("k2", &json!(2)).unwrap();
        cb.put("k2", &json!(2)).unwrap();
        cb.put("k3", &json!({"x": 3})).unwrap();
        let merged = CallCache::open(&all).unwrap();
        assert_eq!(merged.absorb(&a).unwrap(), 2);
        assert_eq!(merged.absorb(&b).unwrap(), 1);
        assert_eq!(merged.absorb(&b).unwrap(), 0);
        assert_eq!(merged.len().unwrap(), 3);
        assert_eq!(merged.get("k3"), Some(json!({"x": 3})));
        // Not a cache: refused, nothing copied.
        let other = dir.path().join("other.sqlite");
        Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
        let err = merged.absorb(&other).unwrap_err().to_string();
        assert!(err.contains("not a call cache"), "{err}");
        assert_eq!(CallCache::disabled().absorb(&a).unwrap(), 0);
    }
}
