//! A pool of servers of one model: client-side load balancing, health, failover.
//!
//! Each request goes to the healthy endpoint with the fewest requests in flight or waiting (ties:
//! the next in turn). An endpoint that fails with a connection error, a time-out or a 5xx is taken
//! out for a cool-off (2 s, doubled on each further failure, at most 60 s); when its cool-off is
//! over, a health check (`GET /models`, one attempt, 2 s) decides whether it takes requests again
//! or waits another, longer cool-off (a circuit breaker: closed, open, half-open). When every
//! endpoint is out, the one whose cool-off ends first is tried anyway, so a pool never refuses
//! work on its own. Each endpoint bounds its own requests in flight.

use crate::semaphore::{Permit, Semaphore};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// First cool-off of a failed endpoint.
const FIRST_COOL_OFF: Duration = Duration::from_secs(2);
/// Longest cool-off.
const MAX_COOL_OFF: Duration = Duration::from_secs(60);
/// Time limit of a health check.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// Requests and failures of one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointStats {
    /// The endpoint's base URL.
    pub base_url: String,
    /// HTTP requests sent to it (health checks not counted).
    pub requests: u64,
    /// Attempts on it that failed with a connection error, a time-out or a 5xx.
    pub failures: u64,
    /// Whether it is out (cooling off) now.
    pub down: bool,
}

#[derive(Debug, Default)]
struct Health {
    /// Out until then; `None` when taking requests.
    down_until: Option<Instant>,
    /// The next cool-off.
    cool_off: Duration,
}

/// One server of the pool.
pub(crate) struct Endpoint {
    pub(crate) base_url: String,
    pub(crate) url: String,
    permits: Semaphore,
    waiting: AtomicUsize,
    pub(crate) requests: AtomicU64,
    failures: AtomicU64,
    health: Mutex<Health>,
}

/// A request slot on an endpoint: counts as in flight until dropped.
pub(crate) struct Slot<'a> {
    pub(crate) endpoint: &'a Endpoint,
    _permit: Permit<'a>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.endpoint.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Endpoint {
    fn down_until(&self) -> Option<Instant> {
        self.health.lock().unwrap_or_else(|p| p.into_inner()).down_until
    }
}

/// The servers of one model.
pub(crate) struct Endpoints {
    list: Vec<Endpoint>,
    turn: AtomicUsize,
}

impl Endpoints {
    /// A pool of `base_urls` (already without a trailing `/`), each with `concurrency` requests
    /// in flight at most.
    pub(crate) fn new(base_urls: &[String], concurrency: usize) -> Self {
        let list = base_urls
            .iter()
            .map(|b| Endpoint {
                base_url: b.clone(),
                url: format!("{b}/chat/completions"),
                permits: Semaphore::new(concurrency),
                waiting: AtomicUsize::new(0),
                requests: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                health: Mutex::new(Health::default()),
            })
            .collect();
        Self { list, turn: AtomicUsize::new(0) }
    }

    /// How many servers.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// A slot on the endpoint the next request should go to; `check(base_url)` is the health
    /// check of an endpoint whose cool-off is over. Blocks while that endpoint is at its bound.
    pub(crate) fn acquire(&self, check: impl Fn(&str, Duration) -> bool) -> Slot<'_> {
        let endpoint = self.pick(check);
        endpoint.waiting.fetch_add(1, Ordering::SeqCst);
        Slot { endpoint, _permit: endpoint.permits.acquire() }
    }

    fn pick(&self, check: impl Fn(&str, Duration) -> bool) -> &Endpoint {
        let n = self.list.len();
        let start = self.turn.fetch_add(1, Ordering::Relaxed) % n;
        let now = Instant::now();
        let mut best: Option<&Endpoint> = None;
        for k in 0..n {
            let e = &self.list[(start + k) % n];
            match e.down_until() {
                Some(t) if t > now => continue,
                // Half-open: checked before it takes requests again.
                Some(_) if !check(&e.base_url, HEALTH_TIMEOUT) => {
                    self.failed(e);
                    continue;
                }
                Some(_) => self.recovered(e),
                None => {}
            }
            if best.is_none_or(|b| e.waiting.load(Ordering::SeqCst) < b.waiting.load(Ordering::SeqCst)) {
                best = Some(e);
            }
        }
        // Every endpoint out: the one back first.
        best.unwrap_or_else(|| self.list.iter().min_by_key(|e| e.down_until().unwrap_or(now)).unwrap_or(&self.list[0]))
    }

    /// Takes `e` out for its next cool-off.
    pub(crate) fn failed(&self, e: &Endpoint) {
        e.failures.fetch_add(1, Ordering::Relaxed);
        let mut h = e.health.lock().unwrap_or_else(|p| p.into_inner());
        let cool_off = if h.cool_off.is_zero() { FIRST_COOL_OFF } else { h.cool_off };
        h.down_until = Some(Instant::now() + cool_off);
        h.cool_off = (cool_off * 2).min(MAX_COOL_OFF);
    }

    /// Puts `e` back.
    pub(crate) fn recovered(&self, e: &Endpoint) {
        let mut h = e.health.lock().unwrap_or_else(|p| p.into_inner());
        *h = Health::default();
    }

    /// Whether an endpoint other than `e` takes requests now.
    pub(crate) fn another_up(&self, e: &Endpoint) -> bool {
        let now = Instant::now();
        self.list.iter().any(|o| !std::ptr::eq(o, e) && o.down_until().is_none_or(|t| t <= now))
    }

    /// Requests and failures of each endpoint.
    pub(crate) fn stats(&self) -> Vec<EndpointStats> {
        let now = Instant::now();
        self.list
            .iter()
            .map(|e| EndpointStats {
                base_url: e.base_url.clone(),
                requests: e.requests.load(Ordering::Relaxed),
                failures: e.failures.load(Ordering::Relaxed),
                down: e.down_until().is_some_and(|t| t > now),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> Endpoints {
        Endpoints::new(&(0..n).map(|i| format!("http://e{i}")).collect::<Vec<_>>(), 2)
    }

    #[test]
    fn requests_go_to_the_least_busy_endpoint() {
        let p = pool(2);
        let a = p.acquire(|_, _| true);
        let b = p.acquire(|_, _| true);
        // One in flight on each: the two slots are on different endpoints.
        assert_ne!(a.endpoint.base_url, b.endpoint.base_url);
        drop(a);
        let c = p.acquire(|_, _| true);
        let d = p.acquire(|_, _| true);
        assert_ne!(c.endpoint.base_url, d.endpoint.base_url);
    }

    #[test]
    fn a_failed_endpoint_is_out_until_its_health_check_passes() {
        let p = pool(2);
        p.failed(&p.list[0]);
        assert!(p.another_up(&p.list[0]) && !p.another_up(&p.list[1]));
        for _ in 0..4 {
            assert_eq!(p.acquire(|_, _| panic!("no check while cooling off")).endpoint.base_url, "http://e1");
        }
        // Cool-off over: a failing check keeps it out (and doubles the next cool-off), a passing
        // one brings it back.
        p.list[0].health.lock().unwrap().down_until = Some(Instant::now());
        assert_eq!(p.acquire(|_, _| false).endpoint.base_url, "http://e1");
        assert_eq!(p.list[0].health.lock().unwrap().cool_off, FIRST_COOL_OFF * 4);
        p.list[0].health.lock().unwrap().down_until = Some(Instant::now());
        let s = p.stats();
        assert_eq!((s[0].failures, s[0].down), (2, false));
        let slots: Vec<Slot<'_>> = (0..2).map(|_| p.acquire(|_, _| true)).collect();
        assert!(slots.iter().any(|s| s.endpoint.base_url == "http://e0"));
        assert_eq!(p.list[0].health.lock().unwrap().cool_off, Duration::ZERO);
    }

    #[test]
    fn with_every_endpoint_out_the_first_back_is_tried() {
        let p = pool(2);
        p.failed(&p.list[1]);
        p.failed(&p.list[0]);
        // e1 failed first: its cool-off ends first.
        assert_eq!(p.acquire(|_, _| panic!("no check while cooling off")).endpoint.base_url, "http://e1");
    }
}
