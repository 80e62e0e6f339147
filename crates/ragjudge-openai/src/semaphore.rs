//! A counting semaphore bounding requests in flight.

use std::sync::{Condvar, Mutex};

/// A counting semaphore bounding requests in flight.
pub(crate) struct Semaphore {
    free: Mutex<usize>,
    cv: Condvar,
}

pub(crate) struct Permit<'a>(&'a Semaphore);

impl Semaphore {
    pub(crate) fn new(n: usize) -> Self {
        Self { free: Mutex::new(n.max(1)), cv: Condvar::new() }
    }

    pub(crate) fn acquire(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            free = self.cv.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.0.cv.notify_one();
    }
}
