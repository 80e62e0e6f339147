//! Back-pressure: at most `max_inflight` jobs run and at most `queue` more wait; a request
//! beyond that is refused at once (the caller answers 429 with `Retry-After`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Jobs running and waiting at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// Jobs running.
    pub running: usize,
    /// Requests admitted and waiting for a slot.
    pub waiting: usize,
}

#[derive(Debug)]
struct Inner {
    slots: Arc<Semaphore>,
    max_inflight: usize,
    queue: usize,
    admitted: AtomicUsize,
    running: AtomicUsize,
}

/// A bounded number of running jobs plus a bounded wait queue.
#[derive(Debug, Clone)]
pub struct Admission {
    inner: Arc<Inner>,
}

/// A request admitted (running or waiting); releases its place when dropped.
#[derive(Debug)]
pub struct Ticket {
    inner: Arc<Inner>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.inner.admitted.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A running job: holds its slot (and its place) until dropped, also when the request that
/// started it has timed out, so the bound on running jobs always holds.
#[derive(Debug)]
pub struct Job {
    _permit: OwnedSemaphorePermit,
    _ticket: Ticket,
    inner: Arc<Inner>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.inner.running.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Admission {
    /// At most `max_inflight` (at least 1) running jobs and `queue` waiting requests.
    pub fn new(max_inflight: usize, queue: usize) -> Self {
        let max_inflight = max_inflight.max(1);
        Admission {
            inner: Arc::new(Inner {
                slots: Arc::new(Semaphore::new(max_inflight)),
                max_inflight,
                queue,
                admitted: AtomicUsize::new(0),
                running: AtomicUsize::new(0),
            }),
        }
    }

    /// A place for one more request, or `None` when `max_inflight + queue` are taken.
    pub fn try_admit(&self) -> Option<Ticket> {
        let bound = self.inner.max_inflight + self.inner.queue;
        self.inner
            .admitted
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < bound).then_some(n + 1))
            .ok()
            .map(|_| Ticket { inner: self.inner.clone() })
    }

    /// Waits for a free slot and starts the job of `ticket`.
    #[allow(clippy::expect_used, reason = "the semaphore lives as long as the admission and is never closed")]
    pub async fn start(&self, ticket: Ticket) -> Job {
        let permit = self.inner.slots.clone().acquire_owned().await.expect("the semaphore is never closed");
        self.inner.running.fetch_add(1, Ordering::SeqCst);
        Job { _permit: permit, _ticket: ticket, inner: self.inner.clone() }
    }

    /// Jobs running and requests waiting now.
    pub fn load(&self) -> Load {
        let running = self.inner.running.load(Ordering::SeqCst);
        let admitted = self.inner.admitted.load(Ordering::SeqCst);
        Load { running, waiting: admitted.saturating_sub(running) }
    }

    /// The bound on running jobs.
    pub fn max_inflight(&self) -> usize {
        self.inner.max_inflight
    }

    /// The bound on waiting requests.
    pub fn queue(&self) -> usize {
        self.inner.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn admits_running_plus_queue_then_refuses() {
        let a = Admission::new(1, 2);
        let t1 = a.try_admit().unwrap();
        let t2 = a.try_admit().unwrap();
        let t3 = a.try_admit().unwrap();
        assert!(a.try_admit().is_none(), "1 running + 2 waiting is the bound");
        let job = a.start(t1).await;
        assert_eq!(a.load(), Load { running: 1, waiting: 2 });
        drop(t3);
        assert_eq!(a.load(), Load { running: 1, waiting: 1 });
        assert!(a.try_admit().is_some());
        drop(job);
        assert_eq!(a.load(), Load { running: 0, waiting: 1 });
        let _job2 = a.start(t2).await;
        assert_eq!(a.load(), Load { running: 1, waiting: 0 });
    }
}
